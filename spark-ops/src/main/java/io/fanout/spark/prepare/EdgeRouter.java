package io.fanout.spark.prepare;

import io.fanout.spark.partition.HashPartitioner;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.function.PairFlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import scala.Tuple2;

/**
 * The map side of the {@code --id-lookup task} edge shuffle: reads {@code (src, dst)} rows in
 * original ids and packs each edge, and its reverse twin when the graph is undirected (not for a
 * self-loop), into an {@link EdgeBlocks} block for the hash partition of its destination. A block
 * is emitted when it is full, the rest when the input ends; the key is the block's partition
 * ({@link ByPartition} routes it).
 *
 * <p>It holds one block per partition and direction: at most about {@link #BUFFER_BYTES}, whatever
 * the input's size, and allocates nothing per edge.
 */
final class EdgeRouter implements PairFlatMapFunction<Iterator<InternalRow>, Integer, byte[]> {
  private static final long serialVersionUID = 1L;

  /** Bytes of open blocks a map task holds, across partitions and directions. */
  static final int BUFFER_BYTES = 4 << 20;

  private static final int MIN_ROWS = 16;

  private final int partitions;
  private final boolean srcLongIds;
  private final boolean longIds;
  private final boolean undirected;

  /**
   * @param partitions the store's (hash) partitions
   * @param longIds whether ids are {@code bigint} (else {@code int})
   * @param undirected also route {@code dst -> src} of every edge that is not a self-loop
   */
  EdgeRouter(int partitions, boolean longIds, boolean undirected) {
    this(partitions, longIds, longIds, undirected);
  }

  /**
   * The router of a relation of a typed store, whose source and destination types may have
   * different id types.
   *
   * @param partitions the destination type's (hash) partitions
   * @param srcLongIds whether source ids are {@code bigint} (else {@code int})
   * @param dstLongIds whether destination ids are {@code bigint} (else {@code int})
   * @param undirected also route {@code dst -> src} of every edge that is not a self-loop (one id
   *     type only)
   */
  EdgeRouter(int partitions, boolean srcLongIds, boolean dstLongIds, boolean undirected) {
    if (undirected && srcLongIds != dstLongIds) {
      throw new IllegalArgumentException("undirected edges join one vertex table");
    }
    this.partitions = partitions;
    this.srcLongIds = srcLongIds;
    this.longIds = dstLongIds;
    this.undirected = undirected;
  }

  /** Edges a block holds before it is emitted, for {@code partitions} partitions. */
  static int blockRows(int partitions) {
    long perBlock = BUFFER_BYTES / (2L * EdgeBlocks.BYTES_PER_EDGE * Math.max(1, partitions));
    return (int) Math.max(MIN_ROWS, Math.min(EdgeBlocks.MAX_ROWS, perBlock));
  }

  @Override
  public Iterator<Tuple2<Integer, byte[]>> call(Iterator<InternalRow> input) {
    return new Blocks(input);
  }

  /** Routes a key {@link EdgeRouter} emitted to the shuffle partition of the same number. */
  static final class ByPartition extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int n;

    ByPartition(int n) {
      this.n = Math.max(1, n);
    }

    @Override
    public int numPartitions() {
      return n;
    }

    @Override
    public int getPartition(Object key) {
      return (Integer) key;
    }
  }

  private final class Blocks implements Iterator<Tuple2<Integer, byte[]>> {
    private final Iterator<InternalRow> input;
    private final int rows = blockRows(partitions);

    // slot 2p: edges into partition p; slot 2p + 1: their reverse twins
    private final long[][] src = new long[2 * partitions][];
    private final long[][] dst = new long[2 * partitions][];
    private final int[] filled = new int[2 * partitions];
    private final ArrayDeque<Tuple2<Integer, byte[]>> ready = new ArrayDeque<>();
    private boolean ended;

    Blocks(Iterator<InternalRow> input) {
      this.input = input;
    }

    @Override
    public boolean hasNext() {
      while (ready.isEmpty() && !ended) {
        if (input.hasNext()) {
          InternalRow r = input.next();
          long s = srcLongIds ? r.getLong(0) : r.getInt(0);
          long d = longIds ? r.getLong(1) : r.getInt(1);
          add(2 * HashPartitioner.partitionOf(d, longIds, partitions), s, d);
          if (undirected && s != d) {
            add(2 * HashPartitioner.partitionOf(s, longIds, partitions) + 1, d, s);
          }
        } else {
          ended = true;
          for (int slot = 0; slot < filled.length; slot++) {
            emit(slot);
          }
        }
      }
      return !ready.isEmpty();
    }

    @Override
    public Tuple2<Integer, byte[]> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return ready.poll();
    }

    private void add(int slot, long s, long d) {
      if (src[slot] == null) {
        src[slot] = new long[rows];
        dst[slot] = new long[rows];
      }
      int i = filled[slot];
      src[slot][i] = s;
      dst[slot][i] = d;
      filled[slot] = i + 1;
      if (i + 1 == rows) {
        emit(slot);
      }
    }

    private void emit(int slot) {
      int n = filled[slot];
      if (n == 0) {
        return;
      }
      int p = slot >>> 1;
      ready.add(new Tuple2<>(p, EdgeBlocks.encode(p, (slot & 1) == 1, src[slot], dst[slot], n)));
      filled[slot] = 0;
    }
  }
}
