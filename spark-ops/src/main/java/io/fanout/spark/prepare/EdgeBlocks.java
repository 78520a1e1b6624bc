package io.fanout.spark.prepare;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The packed blocks in which {@code --id-lookup task} shuffles edges: up to {@link #MAX_ROWS} edges
 * {@code src -> dst} in original ids, all bound for one store partition and all of one direction.
 * One shuffle record carries a block, so Spark's per-record cost (a row's length, its null bits, a
 * copy, a boxed partition id) is paid once per block instead of once per edge.
 *
 * <p>Layout, little-endian: {@code int rows, int partition, int reverse (0 or 1), int 0}, then
 * {@code rows} source ids, then {@code rows} destination ids, 8 bytes each (int ids widened).
 */
final class EdgeBlocks {
  private EdgeBlocks() {}

  /** The most edges a block holds: the csr task looks a block's endpoints up in one go. */
  static final int MAX_ROWS = 1024;

  /** Bytes an edge takes in a block: its two ids. */
  static final int BYTES_PER_EDGE = 16;

  private static final int HEADER = 16;

  /** A block of edges {@code src[i] -> dst[i]}, {@code i < rows}, for {@code partition}. */
  static byte[] encode(int partition, boolean reverse, long[] src, long[] dst, int rows) {
    if (rows < 1 || rows > MAX_ROWS) {
      throw new IllegalArgumentException("a block holds 1 to " + MAX_ROWS + " edges, not " + rows);
    }
    byte[] block = new byte[HEADER + BYTES_PER_EDGE * rows];
    ByteBuffer b = ByteBuffer.wrap(block).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(rows).putInt(partition).putInt(reverse ? 1 : 0).putInt(0);
    b.asLongBuffer().put(src, 0, rows).put(dst, 0, rows);
    return block;
  }

  /** The edges in {@code block}. */
  static int rows(byte[] block) {
    int rows = header(block).getInt(0);
    if (rows < 1 || rows > MAX_ROWS || block.length != HEADER + BYTES_PER_EDGE * rows) {
      throw new IllegalStateException(
          "an edge block of " + block.length + " bytes says it holds " + rows + " edges");
    }
    return rows;
  }

  /** The store partition every destination of {@code block} belongs to. */
  static int partition(byte[] block) {
    return header(block).getInt(4);
  }

  /** Whether {@code block} holds the reverse twins of undirected input edges. */
  static boolean reverse(byte[] block) {
    return header(block).getInt(8) != 0;
  }

  /**
   * Copies the block's sources into {@code src} and destinations into {@code dst}; returns how many
   * edges it holds ({@link #rows}).
   */
  static int read(byte[] block, long[] src, long[] dst) {
    int rows = rows(block);
    ByteBuffer b =
        ByteBuffer.wrap(block, HEADER, BYTES_PER_EDGE * rows)
            .slice()
            .order(ByteOrder.LITTLE_ENDIAN);
    b.asLongBuffer().get(src, 0, rows).get(dst, 0, rows);
    return rows;
  }

  private static ByteBuffer header(byte[] block) {
    if (block.length < HEADER) {
      throw new IllegalStateException("an edge block of " + block.length + " bytes has no header");
    }
    return ByteBuffer.wrap(block, 0, HEADER).order(ByteOrder.LITTLE_ENDIAN);
  }
}
