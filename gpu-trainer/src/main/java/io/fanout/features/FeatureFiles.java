package io.fanout.features;

import io.fanout.graph.GraphStore;
import io.fanout.graph.RowDecoder;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.tensor.PageMemory;
import io.fanout.tensor.RowFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Reads feature rows of a store's {@code features/part-NNNNN.feat} files with positional reads
 * ({@link FileChannel#read(ByteBuffer, long)}), not through the memory map: the rows of one request
 * are sorted by their position in the files, merged into read calls as a {@link ReadCoalescing}
 * says (rows close together share a call, up to a largest call), and the calls are split over a
 * small I/O thread pool, each thread with its own channels. A {@link RowLayout} says where each row
 * lies (rows at their own ids without one). Rows are read as stored (in the store's encoding,
 * {@link #rowBytes} each) and decoded by the store's {@link RowDecoder} straight into the caller's
 * float buffer; the encoded bytes can be kept too ({@link RowPages}). Counts the reads and bytes it
 * issues. One request at a time.
 *
 * <p>With {@code direct}, the files are opened with {@code O_DIRECT} (the JDK's {@code
 * ExtendedOpenOption.DIRECT}), so reads bypass the kernel's page cache and go to the device: each
 * read covers whole blocks of the file system's block size, into block-aligned buffers. {@link
 * #bytesTransferred} counts what the calls moved, gaps and alignment included.
 */
public final class FeatureFiles implements AutoCloseable {
  /** Rows per I/O task at least: smaller requests are not split. */
  private static final int INLINE_ROWS = 64;

  private final Path[] paths;

  /** {@code channels[task][part]}: each I/O task reads through its own channels. */
  private final FileChannel[][] channels;

  private final long[] firstVertex;
  private final int numVertices;
  private final int dim;
  private final int rowBytes;
  private final RowDecoder decoder;
  private final boolean f32;
  private final String encoding;
  private final boolean direct;
  private final ReadCoalescing coalescing;
  private final RowLayout layout;
  private final int block;
  private final int bufferBytes;
  private final ByteBuffer[] buffers;
  private final FloatBuffer[] views;
  private final long[] taskReads;
  private final long[] taskBytes;
  private final long[] taskTransferred;
  private final ExecutorService pool;
  private long[] order = new long[0];

  /** The read's requests by row: {@code order} or the sorter's scratch. */
  private long[] sorted = order;

  private final RowOrderSort sorter = new RowOrderSort();
  private long reads;
  private long rowsRead;
  private long bytesRead;
  private long bytesTransferred;
  private long readNanos;

  private FeatureFiles(
      Path[] paths,
      long[] firstVertex,
      int numVertices,
      FeatureParams params,
      String encoding,
      int threads,
      boolean direct,
      ReadCoalescing coalescing,
      RowLayout layout) {
    if (layout.rows() >= 0 && layout.rows() != numVertices) {
      throw new IllegalArgumentException(
          "a row layout of " + layout.rows() + " rows for files of " + numVertices);
    }
    this.paths = paths;
    this.coalescing = coalescing;
    this.layout = layout;
    this.firstVertex = firstVertex;
    this.numVertices = numVertices;
    this.dim = params.dim;
    this.decoder = RowDecoder.of(params);
    this.f32 = params.encoding == StoreLayout.ENCODING_F32;
    this.encoding = encoding;
    this.rowBytes = decoder.rowBytes();
    int request = Math.max(coalescing.maxRequestBytes(), rowBytes);
    this.direct = direct;
    int t = Math.max(1, threads);
    this.channels = new FileChannel[t][paths.length];
    this.block = direct ? blockSize(paths) : 1;
    // O_DIRECT: a run starts up to one block before its first row and ends on a block boundary.
    this.bufferBytes = direct ? (request + 3 * block - 1) & -block : request;
    buffers = new ByteBuffer[t];
    views = new FloatBuffer[t];
    taskReads = new long[t];
    taskBytes = new long[t];
    taskTransferred = new long[t];
    for (int i = 0; i < t; i++) {
      ByteBuffer b =
          direct
              ? ByteBuffer.allocateDirect(bufferBytes + block).alignedSlice(block)
              : ByteBuffer.allocateDirect(bufferBytes);
      buffers[i] = b.order(ByteOrder.LITTLE_ENDIAN);
      views[i] = buffers[i].asFloatBuffer();
    }
    int p = 0;
    try {
      for (; p < paths.length; p++) {
        for (FileChannel[] c : channels) {
          c[p] =
              direct
                  ? FileChannel.open(
                      paths[p], StandardOpenOption.READ, com.sun.nio.file.ExtendedOpenOption.DIRECT)
                  : FileChannel.open(paths[p], StandardOpenOption.READ);
        }
      }
    } catch (UnsupportedOperationException e) {
      closeChannels();
      throw noDirectIo(paths[p], e);
    } catch (IOException e) {
      closeChannels();
      if (direct) {
        throw noDirectIo(paths[p], e);
      }
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
    return open(store, threads, false);
  }

  /**
   * {@link #open(GraphStore, int)}, with {@code direct}: reads with {@code O_DIRECT}, bypassing the
   * page cache (see the class comment).
   */
  public static FeatureFiles open(GraphStore store, int threads, boolean direct) {
    return open(store, threads, direct, ReadCoalescing.defaultFor(direct));
  }

  /**
   * {@link #open(GraphStore, int, boolean)}, merging rows into calls as {@code coalescing} says.
   */
  public static FeatureFiles open(
      GraphStore store, int threads, boolean direct, ReadCoalescing coalescing) {
    StoreManifest m = store.manifest();
    if (m.featureDim <= 0) {
      throw new InvalidInputException(
          store.root()
              + " has no features (feature_dim 0); --feature-cache needs a store with features,"
              + " or leave --feature-cache out");
    }
    RowFiles files = StoreFeatureRows.files(store);
    return new FeatureFiles(
        files.files(),
        files.starts(),
        (int) m.vertices,
        store.featureParams(),
        m.featureEncoding,
        threads,
        direct,
        coalescing,
        RowLayout.of(store));
  }

  /**
   * Feature files outside a store: {@code paths[p]} holds rows {@code [starts[p], starts[p+1])}
   * encoded with {@code params} after a {@link StoreLayout#HEADER_BYTES}-byte header (the layout of
   * a store's feature files), read through the page cache on {@code threads} I/O threads.
   */
  public static FeatureFiles of(Path[] paths, long[] starts, FeatureParams params, int threads) {
    return of(paths, starts, params, threads, false, ReadCoalescing.BUFFERED, RowLayout.IDENTITY);
  }

  /**
   * {@link #of(Path[], long[], FeatureParams, int)} with positions {@code [starts[p], starts[p+1])}
   * in {@code paths[p]} and row {@code v} at position {@code layout.position(v)}, read with {@code
   * O_DIRECT} when {@code direct}, merged into calls as {@code coalescing} says.
   */
  public static FeatureFiles of(
      Path[] paths,
      long[] starts,
      FeatureParams params,
      int threads,
      boolean direct,
      ReadCoalescing coalescing,
      RowLayout layout) {
    return new FeatureFiles(
        paths.clone(),
        starts.clone(),
        Math.toIntExact(starts[paths.length]),
        params,
        StoreLayout.encodingName(params.encoding),
        threads,
        direct,
        coalescing,
        layout);
  }

  /** The largest block size of the files' file systems (a power of two, at least 512). */
  private static int blockSize(Path[] paths) {
    long b = 512;
    for (Path p : paths) {
      try {
        b = Math.max(b, java.nio.file.Files.getFileStore(p).getBlockSize());
      } catch (IOException | UnsupportedOperationException e) {
        throw new InvalidInputException(
            p + ": cannot read the file system's block size for O_DIRECT (" + e + ")");
      }
    }
    if (Long.bitCount(b) != 1 || b > (1 << 20)) {
      throw new InvalidInputException(
          paths[0]
              + ": block size "
              + b
              + " is not a power of two up to 1 MiB; O_DIRECT needs one");
    }
    return (int) b;
  }

  private static InvalidInputException noDirectIo(Path path, Exception e) {
    return new InvalidInputException(
        path
            + " cannot be opened with O_DIRECT ("
            + e
            + "); the file system must support direct I/O, or read without it");
  }

  /** How rows are merged into read calls. */
  public ReadCoalescing coalescing() {
    return coalescing;
  }

  /** Where the rows lie in the files. */
  public RowLayout layout() {
    return layout;
  }

  /** Whether reads bypass the page cache ({@code O_DIRECT}). */
  public boolean direct() {
    return direct;
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

  /**
   * A store of {@code slots} encoded rows of this store's encoding in {@code memory}, decoded as
   * these files.
   */
  RowPages pages(int slots, PageMemory memory) {
    return new RowPages(slots, rowBytes, decoder, f32, dim, memory, Math.max(1, numVertices));
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
   * Nanoseconds spent in reads so far: from sorting a read's rows to the end of its calls and
   * decoding (for a read {@link #start started} ahead, the time until it is {@link #finish}ed).
   */
  public long readNanos() {
    return readNanos;
  }

  /**
   * Bytes the read calls moved so far: {@link #bytesRead} plus, with {@code O_DIRECT}, the block
   * alignment and the gaps read between merged rows.
   */
  public long bytesTransferred() {
    return bytesTransferred;
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
   * slots in parallel, so the non-negative slots must be distinct. With {@code out} null the rows
   * are only copied into their slots (every slot must then be set).
   */
  void read(int[] rows, int[] outPos, int[] slots, int n, float[] out, RowPages pages) {
    finish(start(rows, outPos, slots, n, out, pages));
  }

  /**
   * A read issued by {@link #start} and not yet waited for: its calls run on the I/O threads while
   * the caller does other work; {@link #finish} waits for them.
   */
  static final class PendingRead {
    private final List<Future<?>> futures;
    private final int rows;
    private final int tasks;
    private final long startNanos;

    private PendingRead(List<Future<?>> futures, int rows, int tasks, long startNanos) {
      this.futures = futures;
      this.rows = rows;
      this.tasks = tasks;
      this.startNanos = startNanos;
    }
  }

  /**
   * Starts {@link #read(int[], int[], int[], int, float[], RowPages)}: sorts the rows and hands the
   * calls to the I/O threads, then returns. Until {@link #finish} the arrays must not change, and
   * {@code out} and the slots being written must not be read. One read in flight at a time.
   */
  PendingRead start(int[] rows, int[] outPos, int[] slots, int n, float[] out, RowPages pages) {
    long t0 = System.nanoTime();
    if (n == 0) {
      return new PendingRead(List.of(), 0, 0, t0);
    }
    if (order.length < n) {
      order = new long[Math.max(n, order.length * 2)];
    }
    for (int i = 0; i < n; i++) {
      order[i] = ((long) layout.position(rows[i]) << 32) | i;
    }
    sorted = sorter.sort(order, n, numVertices);
    int tasks = Math.max(1, Math.min(buffers.length, n / INLINE_ROWS));
    List<Future<?>> futures = new ArrayList<>(tasks);
    for (int t = 0; t < tasks; t++) {
      final int task = t;
      final int from = (int) ((long) n * t / tasks);
      final int to = (int) ((long) n * (t + 1) / tasks);
      futures.add(pool.submit(() -> readRange(task, from, to, outPos, slots, out, pages)));
    }
    return new PendingRead(futures, n, tasks, t0);
  }

  /**
   * Waits for the read {@code r} to end and counts it; the time from its {@link #start} to now goes
   * to {@link #readNanos}.
   */
  void finish(PendingRead r) {
    awaitAll(r.futures);
    int n = r.rows;
    int tasks = r.tasks;
    long t0 = r.startNanos;
    rowsRead += n;
    for (int t = 0; t < tasks; t++) {
      reads += taskReads[t];
      bytesRead += taskBytes[t];
      bytesTransferred += taskTransferred[t];
      taskReads[t] = 0;
      taskBytes[t] = 0;
      taskTransferred[t] = 0;
    }
    readNanos += System.nanoTime() - t0;
  }

  /** Reads sorted entries {@code sorted[from .. to)} with buffer {@code task}. */
  private void readRange(
      int task, int from, int to, int[] outPos, int[] slots, float[] out, RowPages pages) {
    ByteBuffer buf = buffers[task];
    FloatBuffer view = views[task];
    int part = 0;
    int i = from;
    long gap = coalescing.maxGapBytes();
    long span = direct ? bufferBytes - block : bufferBytes;
    while (i < to) {
      int first = (int) (sorted[i] >>> 32);
      while (first >= firstVertex[part + 1]) {
        part++;
      }
      while (first < firstVertex[part]) {
        part--;
      }
      // A run of rows (by position) of one part file, at most one buffer long, each at most `gap`
      // bytes past the run's end (a repeated row is part of the run).
      long start = rowOffset(part, first);
      long readStart = start & -(long) block;
      long end = start + rowBytes;
      int len = 1;
      while (i + len < to) {
        int next = (int) (sorted[i + len] >>> 32);
        if (next >= firstVertex[part + 1]) {
          break;
        }
        long ns = rowOffset(part, next);
        if (ns + rowBytes - readStart > span || ns - end > gap) {
          break;
        }
        end = Math.max(end, ns + rowBytes);
        len++;
      }
      long readEnd = direct ? (end + block - 1) & -(long) block : end;
      buf.clear().limit((int) (readEnd - readStart));
      fill(task, part, buf, readStart, end);
      taskReads[task]++;
      taskBytes[task] += (long) len * rowBytes;
      taskTransferred[task] += buf.position();
      for (int r = 0; r < len; r++) {
        int idx = (int) sorted[i + r];
        int off = (int) (rowOffset(part, (int) (sorted[i + r] >>> 32)) - readStart);
        if (out != null) {
          if (f32) {
            view.get(off >> 2, out, outPos[idx], dim);
          } else {
            decoder.decode(buf, off, out, outPos[idx]);
          }
        }
        if (slots != null && slots[idx] >= 0) {
          pages.put(slots[idx], buf, off);
        }
      }
      i += len;
    }
  }

  /** Byte offset of {@code row} in part file {@code part}. */
  private long rowOffset(int part, int row) {
    return StoreLayout.HEADER_BYTES + (row - firstVertex[part]) * (long) rowBytes;
  }

  /**
   * Reads into {@code buf} from {@code pos} until byte {@code need} of the file is in (with {@code
   * O_DIRECT} the buffer's limit is block-aligned and the file's last block may be short).
   */
  private void fill(int task, int part, ByteBuffer buf, long pos, long need) {
    try {
      long at = pos;
      while (at < need) {
        int got = channels[task][part].read(buf, at);
        if (got < 0) {
          throw new InvalidInputException(
              paths[part]
                  + " ends at byte "
                  + at
                  + " but row data up to byte "
                  + need
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
    for (FileChannel[] task : channels) {
      for (FileChannel c : task) {
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
}
