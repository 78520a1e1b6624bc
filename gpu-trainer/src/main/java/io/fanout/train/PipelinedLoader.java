package io.fanout.train;

import io.fanout.features.RowCache;
import io.fanout.graph.FeatureTable;
import io.fanout.nn.FeatureNormKind;
import io.fanout.sample.MiniBatch;
import io.fanout.store.InvalidInputException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;

/**
 * Reads and decodes the parts of an epoch on background threads ahead of the compute step, and
 * gathers features from the (memory-mapped) {@link FeatureTable} when the parts hold node ids only.
 *
 * <p>Part {@code i} is read by thread {@code i mod threads}; each thread owns a bounded queue and a
 * pool of reusable feature buffers of {@code prefetch + 1} entries, which bounds memory. The
 * consumer drains part 0 from queue 0, then part 1 from queue 1, and so on, so the batch order is
 * the part order whatever the thread timing. A reader only decodes (or samples) its batches in
 * order; when the batches' rows are gathered here, a pool of {@code threads} fill threads gathers,
 * prunes and normalizes each one, so the batches of the part the consumer is draining are filled
 * side by side (up to {@code prefetch + 1} at once) while the other readers wait with full queues.
 * Every batch is filled the same way whichever thread fills it.
 *
 * <p>With a {@link RowCache} the cache is the only feature source: the reader threads decode the
 * batches only, and one gather thread takes them in batch order, plans a window of upcoming batches
 * ({@link RowCache#plan}; its length is {@link PlanWindow}'s), gathers the first half of it through
 * the cache into buffers of its own pool and queues them for the consumer, {@code prefetch} batches
 * ahead, then plans the next window (the rest and as many batches after it). A loader that does not
 * gather, given a cache, resolves the rows to cache slots instead ({@link RowCache#resolve}): the
 * consumer's backend reads them in place and releases each batch's slots when done.
 */
public final class PipelinedLoader implements BatchStream {
  private static final TrainBatch END = new TrainBatch(-2);

  private final List<BatchPart> parts;
  private final int dim;
  private final FeatureNormKind norm;
  private final IntPredicate keep;
  private final RowCache cache;
  private final boolean gather;
  private final BatchFiller filler;
  private final BlockingQueue<Object> gathered;
  private final long ticket;
  private final List<BlockingQueue<Object>> queues = new ArrayList<>();
  private final List<BlockingQueue<TrainBatch>> pools = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final ExecutorService fills; // null: the readers fill their own batches
  private int part;
  private long waitNanos;
  private volatile boolean closed;

  /** The number of the last batch this loader resolved to cache slots (0: none). */
  private volatile long lastSlotBatch;

  /**
   * @param table the feature source for parts without inline features (may be null if every part
   *     inlines them)
   * @param dim the feature dimension the model expects
   * @param norm row normalization: none, l1 or l2
   */
  public PipelinedLoader(
      List<BatchPart> parts,
      FeatureTable table,
      int dim,
      FeatureNormKind norm,
      int threadCount,
      int prefetch) {
    this(parts, table, dim, norm, threadCount, prefetch, null);
  }

  /**
   * A loader of only the batches whose index {@code keep} accepts (null: all); the others are
   * skipped by the parts before they are decoded or sampled, and their features never gathered.
   */
  public PipelinedLoader(
      List<BatchPart> parts,
      FeatureTable table,
      int dim,
      FeatureNormKind norm,
      int threadCount,
      int prefetch,
      IntPredicate keep) {
    this(parts, table, dim, norm, threadCount, prefetch, keep, null);
  }

  /**
   * As above; with a non-null {@code cache} the features of every batch are gathered through it
   * (and {@code table} is not used).
   */
  public PipelinedLoader(
      List<BatchPart> parts,
      FeatureTable table,
      int dim,
      FeatureNormKind norm,
      int threadCount,
      int prefetch,
      IntPredicate keep,
      RowCache cache) {
    this(parts, table, dim, norm, threadCount, prefetch, keep, cache, true);
  }

  /**
   * As above; with {@code gather} false the batches come without features ({@link
   * TrainBatch#features()} null, node ids checked against {@code table}) for a backend that reads
   * the rows itself ({@code --feature-access zero-copy}); parts that inline features are then
   * refused, and {@code cache} must be null and {@code norm} none.
   */
  public PipelinedLoader(
      List<BatchPart> parts,
      FeatureTable table,
      int dim,
      FeatureNormKind norm,
      int threadCount,
      int prefetch,
      IntPredicate keep,
      RowCache cache,
      boolean gather) {
    this(parts, table, dim, norm, threadCount, prefetch, keep, cache, gather, null);
  }

  /**
   * As above; with a non-null {@code hot} each reader thread prunes its batches for the hot set's
   * reused rows ({@link HotPruner}) before gathering their features, so the rows that only hot rows
   * reach are never read (a loader that does not gather prunes the batch alone: the trainer then
   * reads the pruned block's rows). Batches gathered through {@code cache} are not pruned here.
   */
  public PipelinedLoader(
      List<BatchPart> parts,
      FeatureTable table,
      int dim,
      FeatureNormKind norm,
      int threadCount,
      int prefetch,
      IntPredicate keep,
      RowCache cache,
      boolean gather,
      HotSet hot) {
    if (!gather && norm != FeatureNormKind.NONE) {
      throw new IllegalArgumentException("a loader that does not gather takes no feature norm");
    }
    this.gather = gather;
    this.keep = keep;
    this.cache = cache;
    this.ticket = cache == null ? -1 : cache.turns().take();
    this.parts = List.copyOf(parts);
    this.dim = dim;
    this.norm = norm;
    this.filler =
        new BatchFiller(
            cache != null ? cache : table,
            dim,
            norm,
            cache != null,
            gather,
            cache == null ? hot : null);
    int n = Math.max(1, Math.min(threadCount, Math.max(1, parts.size())));
    for (int t = 0; t < n; t++) {
      queues.add(new ArrayBlockingQueue<>(Math.max(1, prefetch) + 1));
      BlockingQueue<TrainBatch> pool = new ArrayBlockingQueue<>(Math.max(1, prefetch) + 1);
      for (int i = 0; i < Math.max(1, prefetch) + 1; i++) {
        pool.add(new TrainBatch(t));
      }
      pools.add(pool);
    }
    if (cache == null && gather) {
      AtomicInteger made = new AtomicInteger();
      fills =
          Executors.newFixedThreadPool(
              Math.max(1, threadCount),
              r -> {
                Thread th = new Thread(r, "fanout-fill-" + made.getAndIncrement());
                th.setDaemon(true);
                return th;
              });
    } else {
      fills = null;
    }
    for (int t = 0; t < n; t++) {
      final int id = t;
      Thread th = new Thread(() -> produce(id), "fanout-loader-" + t);
      th.setDaemon(true);
      threads.add(th);
    }
    if (cache != null) {
      BlockingQueue<TrainBatch> pool = new ArrayBlockingQueue<>(Math.max(1, prefetch) + 2);
      for (int i = 0; i < Math.max(1, prefetch) + 2; i++) {
        pool.add(new TrainBatch(n));
      }
      pools.add(pool);
      gathered = new ArrayBlockingQueue<>(Math.max(1, prefetch) + 1);
      Thread g = new Thread(this::gatherThroughCache, "fanout-feature-cache");
      g.setDaemon(true);
      threads.add(g);
    } else {
      gathered = null;
    }
    for (Thread th : threads) {
      th.start();
    }
  }

  /** The readers: the first {@code threads} threads (the gather thread, if any, comes last). */
  private int readers() {
    return cache == null ? threads.size() : threads.size() - 1;
  }

  private void produce(int t) {
    BlockingQueue<Object> q = queues.get(t);
    try {
      for (int p = t; p < parts.size() && !closed; p += readers()) {
        BatchPart bp = parts.get(p);
        Iterator<DecodedBatch> it = keep == null ? bp.open() : bp.open(keep);
        try {
          while (it.hasNext()) {
            DecodedBatch d = it.next();
            TrainBatch tb = pools.get(t).take();
            if (fills != null) {
              Fill f = new Fill(tb, d, bp);
              fills.execute(f);
              q.put(f);
            } else {
              filler.fill(tb, d, bp);
              q.put(tb);
            }
          }
        } finally {
          if (it instanceof AutoCloseable c) {
            c.close();
          }
        }
        q.put(END);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable e) {
      pass(q, e);
    }
  }

  /** Hands a background thread's failure to the consumer, which rethrows it from {@link #next}. */
  private static void pass(BlockingQueue<Object> q, Throwable e) {
    try {
      q.put(e);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
    }
  }

  /** One batch being filled on the fill pool; the consumer waits for it in queue order. */
  private final class Fill implements Runnable {
    private final TrainBatch tb;
    private final DecodedBatch d;
    private final BatchPart part;
    private final CountDownLatch done = new CountDownLatch(1);
    private Throwable error; // published by done

    Fill(TrainBatch tb, DecodedBatch d, BatchPart part) {
      this.tb = tb;
      this.d = d;
      this.part = part;
    }

    @Override
    public void run() {
      try {
        filler.fill(tb, d, part);
      } catch (Throwable e) {
        error = e;
      } finally {
        done.countDown();
      }
    }
  }

  @Override
  public TrainBatch next() {
    if (cache == null) {
      return nextDecoded(true);
    }
    Object o = take(gathered, true);
    if (o instanceof RuntimeException e) {
      throw e;
    }
    if (o instanceof Throwable e) {
      throw new IllegalStateException("gathering features failed", e);
    }
    if (o == END) {
      gathered.add(END);
      return null;
    }
    return (TrainBatch) o;
  }

  /**
   * The gather thread: batches in order from the readers, features through the cache, a window at a
   * time.
   */
  private void gatherThroughCache() {
    BlockingQueue<TrainBatch> pool = pools.get(readers());
    PlanWindow window = PlanWindow.of(cache);
    ArrayDeque<MiniBatch> ring = new ArrayDeque<>();
    int[][] ids = new int[PlanWindow.MIN_BATCHES][];
    int[] counts = new int[PlanWindow.MIN_BATCHES];
    long windowRows = 0;
    try {
      cache.turns().await(ticket);
      boolean more = true;
      while (!closed) {
        while (more && window.wantsMore(ring.size(), windowRows)) {
          TrainBatch h = nextDecoded(false);
          if (h == null) {
            more = false;
            break;
          }
          if (h.features != null) {
            throw new InvalidInputException(
                "shards with inline features cannot be read through --feature-cache; sample them"
                    + " with node ids only, or leave --feature-cache out");
          }
          ring.addLast(h.batch);
          windowRows += h.batch.nodes().length;
          recycle(h);
        }
        int size = ring.size();
        if (size == 0) {
          break;
        }
        if (ids.length < size) {
          ids = new int[Math.max(size, 2 * ids.length)][];
          counts = new int[ids.length];
        }
        int at = 0;
        for (MiniBatch b : ring) {
          ids[at] = b.nodes();
          counts[at++] = b.nodes().length;
        }
        // Gather half the window, then plan again over what is left and the batches after it,
        // so every gathered batch sees at least half a window ahead.
        int step = PlanWindow.servedPerPlan(more, size);
        cache.plan(ids, counts, size, gather ? step : 0);
        for (int i = 0; i < step; i++) {
          MiniBatch b = ring.removeFirst();
          windowRows -= counts[i];
          TrainBatch tb = pool.take();
          int rows = counts[i];
          if (gather) {
            filler.ensureFeatures(tb, rows, "batch " + b.batch());
            cache.gather(ids[i], 0, rows, tb.features, 0);
            FeatureNorm.apply(norm, tb.features, rows, dim);
          } else {
            if (tb.slots == null || tb.slots.length < rows) {
              tb.slots = new int[Math.max(rows, tb.slots == null ? 0 : 2 * tb.slots.length)];
            }
            tb.features = null;
            tb.slotCache = cache;
            tb.slotBatch = cache.resolve(ids[i], 0, rows, tb.slots);
            lastSlotBatch = tb.slotBatch;
          }
          tb.batch = b;
          tb.dim = dim;
          gathered.put(tb);
        }
      }
      cache.turns().done(ticket);
      gathered.put(END);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable e) {
      pass(gathered, e);
    } finally {
      cache.turns().done(ticket);
    }
  }

  /**
   * The next batch from the readers in part order, or null at the end; {@code timed}: count the
   * time spent waiting as the consumer's data wait.
   */
  private TrainBatch nextDecoded(boolean timed) {
    while (part < parts.size()) {
      BlockingQueue<Object> q = queues.get(part % readers());
      Object o = take(q, timed);
      if (o instanceof Throwable e) {
        if (e instanceof RuntimeException re) {
          throw re;
        }
        throw new IllegalStateException("loading " + parts.get(part).name() + " failed", e);
      }
      if (o == END) {
        part++;
        continue;
      }
      if (o instanceof Fill f) {
        return filled(f, timed);
      }
      return (TrainBatch) o;
    }
    return null;
  }

  /**
   * {@code f}'s batch once its fill is done (its failure rethrown); waiting counts as data wait.
   */
  private TrainBatch filled(Fill f, boolean timed) {
    if (f.done.getCount() > 0) {
      long t0 = System.nanoTime();
      try {
        f.done.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for batches", e);
      }
      if (timed) {
        waitNanos += System.nanoTime() - t0;
      }
    }
    if (f.error instanceof RuntimeException re) {
      throw re;
    }
    if (f.error != null) {
      throw new IllegalStateException("loading " + f.part.name() + " failed", f.error);
    }
    return f.tb;
  }

  /** The next item of {@code q}; with {@code timed}, time spent blocked counts as data wait. */
  private Object take(BlockingQueue<Object> q, boolean timed) {
    Object o = q.poll();
    if (o == null) {
      long t0 = System.nanoTime();
      try {
        o = q.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for batches", e);
      }
      if (timed) {
        waitNanos += System.nanoTime() - t0;
      }
    }
    return o;
  }

  @Override
  public void recycle(TrainBatch b) {
    b.releaseSlots();
    if (b.owner >= 0) {
      b.batch = null;
      b.prunedFor = null;
      pools.get(b.owner).offer(b);
    }
  }

  @Override
  public long waitNanos() {
    return waitNanos;
  }

  @Override
  public void close() {
    closed = true;
    for (Thread t : threads) {
      t.interrupt();
    }
    if (fills != null) {
      fills.shutdownNow();
    }
    // Wait for the threads even when the caller was interrupted (a cancelled task): they stop
    // promptly once interrupted, and none may outlive the stream.
    boolean interrupted = false;
    long deadline = System.nanoTime() + 5_000_000_000L;
    if (fills != null) {
      interrupted |=
          waitUntil(
              deadline,
              fills::isTerminated,
              ms -> fills.awaitTermination(ms, TimeUnit.MILLISECONDS));
    }
    for (Thread t : threads) {
      interrupted |= waitUntil(deadline, () -> !t.isAlive(), t::join);
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (lastSlotBatch > 0) {
      // this loader's batches still queued are never read: the next loader must not wait on them
      cache.fence().release(lastSlotBatch);
    }
  }

  /** A wait of at most some milliseconds that an interrupt may cut short. */
  private interface TimedWait {
    void await(long millis) throws InterruptedException;
  }

  /**
   * Waits with {@code wait} until {@code done} or the deadline ({@link System#nanoTime()}), through
   * interrupts; returns whether one was swallowed, for the caller to restore.
   */
  private static boolean waitUntil(long deadline, BooleanSupplier done, TimedWait wait) {
    boolean interrupted = false;
    while (!done.getAsBoolean()) {
      long left = (deadline - System.nanoTime()) / 1_000_000;
      if (left <= 0) {
        break;
      }
      try {
        wait.await(left);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    return interrupted;
  }
}
