package io.fanout.graph;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A read-only, little-endian memory map of a whole file of any length, as power-of-two chunks
 * addressed by shift and mask. Chunk {@code i} maps {@code [i << shift, (i + 1) << shift)} plus 8
 * bytes of overlap, so any value of up to 8 bytes is read from a single chunk even when it
 * straddles a chunk boundary. Nothing is copied to the heap; the page cache holds the data.
 *
 * <p>Positions are {@code long}. Bounds are checked only when {@code -Dfanout.checks=true}.
 */
final class ChunkedMapping {
  /** 1 GiB chunks. */
  static final int DEFAULT_CHUNK_SHIFT = 30;

  private static final int OVERLAP = 8;

  private final String file;
  private final long length;
  private final int shift;
  private final long mask;
  private final MappedByteBuffer[] chunks;
  private final FloatBuffer[] floatChunks;

  ChunkedMapping(Path path) {
    this(path, DEFAULT_CHUNK_SHIFT);
  }

  /**
   * @param chunkShift log2 of the chunk size, 3 .. 30 (tests use tiny chunks)
   */
  ChunkedMapping(Path path, int chunkShift) {
    if (chunkShift < 3 || chunkShift > 30) {
      throw new IllegalArgumentException("chunk shift must be in 3..30, got " + chunkShift);
    }
    this.file = path.toString();
    this.shift = chunkShift;
    this.mask = (1L << chunkShift) - 1;
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      this.length = ch.size();
      int n = (int) ((length + mask) >>> shift);
      chunks = new MappedByteBuffer[Math.max(n, 1)];
      floatChunks = new FloatBuffer[chunks.length];
      for (int i = 0; i < chunks.length; i++) {
        long start = (long) i << shift;
        long size = Math.min(length - start, (1L << shift) + OVERLAP);
        MappedByteBuffer b = ch.map(FileChannel.MapMode.READ_ONLY, start, Math.max(size, 0));
        b.order(ByteOrder.LITTLE_ENDIAN);
        chunks[i] = b;
        floatChunks[i] = b.asFloatBuffer();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot map " + path, e);
    }
  }

  String file() {
    return file;
  }

  long length() {
    return length;
  }

  long getLong(long pos) {
    if (Checks.ENABLED) {
      check(pos, 8);
    }
    return chunks[(int) (pos >>> shift)].getLong((int) (pos & mask));
  }

  int getInt(long pos) {
    if (Checks.ENABLED) {
      check(pos, 4);
    }
    return chunks[(int) (pos >>> shift)].getInt((int) (pos & mask));
  }

  float getFloat(long pos) {
    if (Checks.ENABLED) {
      check(pos, 4);
    }
    return chunks[(int) (pos >>> shift)].getFloat((int) (pos & mask));
  }

  byte get(long pos) {
    if (Checks.ENABLED) {
      check(pos, 1);
    }
    return chunks[(int) (pos >>> shift)].get((int) (pos & mask));
  }

  /**
   * The chunk that holds {@code [pos, pos + len)} whole, to read at {@link #offsetIn}{@code (pos)},
   * or null when the range crosses into the next chunk ({@link #getBytes} copies it then).
   */
  java.nio.ByteBuffer chunkHolding(long pos, int len) {
    if (Checks.ENABLED) {
      check(pos, len);
    }
    MappedByteBuffer c = chunks[(int) (pos >>> shift)];
    return (pos & mask) + len <= c.limit() ? c : null;
  }

  /** The offset of {@code pos} within its chunk. */
  int offsetIn(long pos) {
    return (int) (pos & mask);
  }

  /** Copies {@code len} bytes starting at {@code pos} into {@code dst[off ..]}, across chunks. */
  void getBytes(long pos, byte[] dst, int off, int len) {
    if (Checks.ENABLED) {
      check(pos, len);
    }
    while (len > 0) {
      int c = (int) (pos >>> shift);
      int within = (int) (pos & mask);
      int n = Math.min(len, (1 << shift) - within);
      chunks[c].get(within, dst, off, n);
      pos += n;
      off += n;
      len -= n;
    }
  }

  /** Copies the first {@code len} bytes of the file (or fewer when it is shorter). */
  byte[] head(int len) {
    byte[] out = new byte[(int) Math.min(len, length)];
    for (int i = 0; i < out.length; i++) {
      out[i] = get(i);
    }
    return out;
  }

  /**
   * Copies {@code len} floats starting at byte position {@code pos} (a multiple of 4) into {@code
   * dst[off ..]}, crossing chunk boundaries as needed, without allocating.
   */
  void getFloats(long pos, float[] dst, int off, int len) {
    if (Checks.ENABLED) {
      check(pos, 4L * len);
      if ((pos & 3) != 0) {
        throw new IllegalArgumentException(file + ": unaligned float read at " + pos);
      }
    }
    while (len > 0) {
      int c = (int) (pos >>> shift);
      int within = (int) (pos & mask);
      int n = Math.min(len, ((1 << shift) - within) >>> 2);
      floatChunks[c].get(within >>> 2, dst, off, n);
      pos += 4L * n;
      off += n;
      len -= n;
    }
  }

  private void check(long pos, long width) {
    if (pos < 0 || pos + width > length) {
      throw new IndexOutOfBoundsException(
          file + ": read of " + width + " bytes at " + pos + " outside length " + length);
    }
  }
}
