package io.fanout.features;

import io.fanout.graph.GraphStore;
import io.fanout.graph.RowDecoder;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Reads feature rows of a store's {@code features/part-NNNNN.feat} files with positional reads
 * ({@link FileChannel#read(ByteBuffer, long)}), not through the memory map: the rows of one request
 * are sorted by offset, adjacent rows are merged into one read, and the reads are split over a
 * small I/O thread pool. Rows are read as stored (in the store's encoding, {@link #rowBytes} each)
 * and decoded by the store's {@link RowDecoder} straight into the caller's float buffer; the
 * encoded bytes can be kept too ({@link RowPages}). Counts the reads and bytes it issues. One
 * request at a time.
 */
public final class FeatureFiles implements AutoCloseable {
  private static final int BUFFER_BYTES = 256 << 10;

  /** Rows per I/O task at least: smaller requests are not split. */
  private static final int INLINE_ROWS = 64;

  private final Path[] paths;
  private final FileChannel[] channels;
  private final long[] firstVertex;
  private final int numVertices;
  private final int dim;
  private final int rowBytes;
  private final RowDecoder decoder;
  private final boolean f32;
  private final String encoding;
  private final int rowsPerBuffer;
  private final ByteBuffer[] buffers;
  private final FloatBuffer[] views;
  private final long[] taskReads;
  private final long[] taskBytes;
  private final ExecutorService pool;
  private long[] order = new long[0];
  private long reads;
  private long rowsRead;
  private long bytesRead;

  private FeatureFiles(
      Path[] paths,
      long[] firstVertex,
      int numVertices,
      FeatureParams params,
      String encoding,
      int threads) {
    this.paths = paths;
    this.firstVertex = firstVertex;
    this.numVertices = numVertices;
    this.dim = params.dim;
    this.decoder = RowDecoder.of(params);
    this.f32 = params.encoding == StoreLayout.ENCODING_F32;
    this.encoding = encoding;
    this.rowBytes = decoder.rowBytes();
    this.rowsPerBuffer = Math.max(1, BUFFER_BYTES / rowBytes);
    this.channels = new FileChannel[paths.length];
    int t = Math.max(1, threads);
    buffers = new ByteBuffer[t];
    views = new FloatBuffer[t];
    taskReads = new long[t];
    taskBytes = new long[t];
    for (int i = 0; i < t; i++) {
      buffers[i] =
          ByteBuffer.allocateDirect(rowsPerBuffer * rowBytes).order(ByteOrder.LITTLE_ENDIAN);
      views[i] = buffers[i].asFloatBuffer();
    }
    try {
      for (int p = 0; p < paths.length; p++) {
        channels[p] = FileChannel.open(paths[p], StandardOpenOption.READ);
      }
    } catch (IOException e) {
      closeChannels();
      throw new UncheckedIOException("opening feature file failed: " + e.getMessage(), e);
    }
    // Reads never run on the caller: interrupting a thread inside FileChannel.read closes the
    // channel, and a loader thread is interrupted when its stream closes.
    pool =
        Executors.newFixedThreadPool(
            t,
            r -> {
              Thread th = new Thread(r, "fanout-feature-io");
              th.setDaemon(true);
              return th;
            });
  }

  /**
   * The feature files of an open store ({@link GraphStore#dataRoot}), whose headers the store
   * checked when it was opened.
   *
   * @param threads I/O threads (at least 1)
   */
  public static FeatureFiles open(GraphStore store, int threads) {
    StoreManifest m = store.manifest();
    if (m.featureDim <= 0) {
      throw new InvalidInputException(
          store.root()
              + " has no features (feature_dim 0); --feature-cache needs a store with features,"
              + " or leave --feature-cache out");
    }
    int parts = m.partitionTable.size();
    Path[] paths = new Path[parts];
    long[] starts = new long[parts + 1];
    for (int p = 0; p < parts; p++) {
      StoreManifest.Partition e = m.partitionTable.get(p);
      paths[p] = store.dataRoot().resolve(StoreLayout.featuresFile(e.index));
      starts[p] = e.firstVertex;
      starts[p + 1] = e.firstVertex + e.numVertices;
    }
    return new FeatureFiles(
        paths, starts, (int) m.vertices, store.featureParams(), m.featureEncoding, threads);
  }

  public int numVertices() {
    return numVertices;
  }

  public int dim() {
    return dim;
  }

  /**
   * The store's feature encoding ({@code f32}, {@code f16}, {@code int8}, {@code int4}, {@code
   * pq}).
   */
  public String encoding() {
    return encoding;
  }

  /** A store of {@code slots} encoded rows of this store's encoding, decoded as these files. */
  RowPages pages(int slots) {
    return new RowPages(slots, rowBytes, decoder, f32, dim);
  }

  /** Bytes of one row on disk (encoded). */
  public int rowBytes() {
    return rowBytes;
  }

  /** Bytes of all rows. */
  public long totalBytes() {
    return (long) numVertices * rowBytes;
  }

  /** Positional read calls issued so far. */
  public long reads() {
    return reads;
  }

  /** Rows read from disk so far. */
  public long rowsRead() {
    return rowsRead;
  }

  /** Bytes read from disk so far. */
  public long bytesRead() {
    return bytesRead;
  }

  /**
   * Reads rows {@code rows[0 .. n)} from disk; row {@code i} is decoded to {@code out[outPos[i] ..
   * outPos[i] + dim)}. The ids must be valid ({@code 0 <= id < numVertices}).
   */
  public void read(int[] rows, int[] outPos, int n, float[] out) {
    read(rows, outPos, null, n, out, null);
  }

  /**
   * {@link #read(int[], int[], int, float[])}, also copying the encoded bytes of row {@code i} into
   * slot {@code slots[i]} of {@code pages} where {@code slots[i] >= 0}. The I/O threads write the
   * slots in parallel, so the non-negative slots must be distinct.
   */
  void read(int[] rows, int[] outPos, int[] slots, int n, float[] out, RowPages pages) {
    if (n == 0) {
      return;
    }
    if (order.length < n) {
      order = new long[Math.max(n, order.length * 2)];
    }
    for (int i = 0; i < n; i++) {
      order[i] = ((long) rows[i] << 32) | i;
    }
    Arrays.sort(order, 0, n);
    int tasks = Math.max(1, Math.min(buffers.length, n / INLINE_ROWS));
    List<Future<?>> futures = new ArrayList<>(tasks);
    for (int t = 0; t < tasks; t++) {
      final int task = t;
      final int from = (int) ((long) n * t / tasks);
      final int to = (int) ((long) n * (t + 1) / tasks);
      futures.add(pool.submit(() -> readRange(task, from, to, outPos, slots, out, pages)));
    }
    awaitAll(futures);
    rowsRead += n;
    for (int t = 0; t < tasks; t++) {
      reads += taskReads[t];
      bytesRead += taskBytes[t];
      taskReads[t] = 0;
      taskBytes[t] = 0;
    }
  }

  /** Reads sorted entries {@code order[from .. to)} with buffer {@code task}. */
  private void readRange(
      int task, int from, int to, int[] outPos, int[] slots, float[] out, RowPages pages) {
    ByteBuffer buf = buffers[task];
    FloatBuffer view = views[task];
    int part = 0;
    int i = from;
    while (i < to) {
      int first = (int) (order[i] >>> 32);
      while (first >= firstVertex[part + 1]) {
        part++;
      }
      while (first < firstVertex[part]) {
        part--;
      }
      // A run of consecutive rows of one part file, at most one buffer long.
      int len = 1;
      while (i + len < to
          && len < rowsPerBuffer
          && (int) (order[i + len] >>> 32) == first + len
          && first + len < firstVertex[part + 1]) {
        len++;
      }
      long pos = StoreLayout.HEADER_BYTES + (first - firstVertex[part]) * (long) rowBytes;
      buf.clear().limit(len * rowBytes);
      fill(part, buf, pos);
      taskReads[task]++;
      taskBytes[task] += (long) len * rowBytes;
      for (int r = 0; r < len; r++) {
        int idx = (int) order[i + r];
        if (f32) {
          view.get(r * dim, out, outPos[idx], dim);
        } else {
          decoder.decode(buf, r * rowBytes, out, outPos[idx]);
        }
        if (slots != null && slots[idx] >= 0) {
          pages.put(slots[idx], buf, r * rowBytes);
        }
      }
      i += len;
    }
  }

  private void fill(int part, ByteBuffer buf, long pos) {
    try {
      long at = pos;
      while (buf.hasRemaining()) {
        int got = channels[part].read(buf, at);
        if (got < 0) {
          throw new InvalidInputException(
              paths[part]
                  + " ends at byte "
                  + at
                  + " but row data up to byte "
                  + (pos + buf.limit())
                  + " was expected; the graph store is truncated, run bin/fanout prepare again");
        }
        at += got;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + paths[part] + " failed: " + e.getMessage(), e);
    }
  }

  /** Waits for every task, even when interrupted: their buffers must be free before returning. */
  private static void awaitAll(List<Future<?>> futures) {
    RuntimeException failure = null;
    boolean interrupted = false;
    for (Future<?> f : futures) {
      while (true) {
        try {
          f.get();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (java.util.concurrent.ExecutionException e) {
          if (failure == null) {
            failure =
                e.getCause() instanceof RuntimeException re
                    ? re
                    : new IllegalStateException("feature read failed", e.getCause());
          }
          break;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void close() {
    pool.shutdown();
    closeChannels();
  }

  private void closeChannels() {
    for (FileChannel c : channels) {
      if (c != null) {
        try {
          c.close();
        } catch (IOException e) {
          // read-only: nothing to lose
        }
      }
    }
  }
}
