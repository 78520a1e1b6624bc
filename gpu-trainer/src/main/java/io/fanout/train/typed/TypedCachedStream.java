package io.fanout.train.typed;

import io.fanout.features.RowCache;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.train.PlanWindow;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.IntPredicate;

/**
 * One epoch's typed batches with their input rows read through the run's {@link TypedRowCaches},
 * the typed counterpart of the one-type loader's cache thread: the batches come without features
 * from a source stream (a {@link TypedShardLoader}, or the training thread's reader), and one
 * gather thread takes them in batch order, plans a window of upcoming batches in every type's cache
 * (each type's node lists of those batches, {@link RowCache#plan}; the window's length is {@link
 * PlanWindow}'s, the longest any type's cache asks for), gathers the first half of the window
 * through the caches and queues it for the step, up to {@code prefetch} batches ahead, then plans
 * again over the rest and the batches after it. With hot reuse a batch's rows are those of its
 * bottom hop pruned for the reused rows ({@link TypedInputs.Preparer#prune}, on the gather thread,
 * once per batch): the caches plan and read only the rows the step reads. Every type's rows are
 * decoded by its store's decoder and normalized as {@link TypedFeatures#gather} does, so the step
 * gets the floats of the memory-mapped store whatever the threads, the prefetch, the policy or the
 * budget.
 */
final class TypedCachedStream implements TypedBatchStream {
  private static final Object END = new Object();

  private final TypedBatchStream source;
  private final TypedRowCaches caches;
  private final TypedModelConfig cfg;
  private final TypedInputs.Preparer preparer;
  private final BlockingQueue<Object> ready;
  private final Thread gatherThread;
  private final Runnable onClose;
  private volatile boolean closed;
  private boolean ended;
  private long waitNanos;

  /**
   * Starts gathering the batches of {@code source} (read without features) through {@code caches}.
   *
   * @param preparer prunes each batch for the step ({@link TypedInputs.Preparer#prune}): only the
   *     rows of the batch it leaves are planned and read
   * @param prefetch batches gathered ahead of the step (at least 1)
   * @param onClose run once the stream is closed and its gather thread stopped
   */
  TypedCachedStream(
      TypedBatchStream source,
      TypedRowCaches caches,
      TypedModelConfig cfg,
      TypedInputs.Preparer preparer,
      int prefetch,
      Runnable onClose) {
    this.source = source;
    this.caches = caches;
    this.cfg = cfg;
    this.preparer = preparer;
    this.onClose = onClose;
    this.ready = new ArrayBlockingQueue<>(Math.max(1, prefetch) + 1);
    this.gatherThread = new Thread(this::gather, "fanout-typed-feature-cache");
    gatherThread.setDaemon(true);
    gatherThread.start();
  }

  /**
   * {@code epochs} with every batch's input rows (those of the batch the callers' {@link
   * TypedInputs.Preparer#prune} leaves) read through {@code caches} (their {@link
   * TypedInputs.Preparer#features} is not used: the caches give the same rows); the hits and misses
   * of each epoch go to {@code progress} (null: nowhere) when its stream closes.
   */
  static TypedEpochs through(
      TypedEpochs epochs,
      TypedRowCaches caches,
      TypedModelConfig cfg,
      int prefetch,
      PrintStream progress) {
    return new TypedEpochs() {
      @Override
      public Iterator<TypedMiniBatch> epoch(int epoch) {
        return epochs.epoch(epoch);
      }

      @Override
      public Iterator<TypedMiniBatch> epoch(int epoch, IntPredicate keep) {
        return epochs.epoch(epoch, keep);
      }

      @Override
      public int batches(int epoch) {
        return epochs.batches(epoch);
      }

      @Override
      public TypedBatchStream inputs(int epoch, IntPredicate keep, TypedInputs.Preparer features) {
        long[] since = caches.counters();
        return new TypedCachedStream(
            epochs.inputs(epoch, keep, b -> null),
            caches,
            cfg,
            features,
            prefetch,
            () -> {
              if (progress != null) {
                progress.println(caches.line("epoch " + (epoch + 1), since));
              }
            });
      }
    };
  }

  /** The gather thread: batches in order from the source, rows through the caches. */
  private void gather() {
    int types = caches.numTypes();
    PlanWindow[] windows = new PlanWindow[types];
    for (int t = 0; t < types; t++) {
      windows[t] = caches.cache(t) == null ? null : PlanWindow.of(caches.cache(t));
    }
    ArrayDeque<TypedInputs> ring = new ArrayDeque<>(); // the batches, pruned, in order
    ArrayDeque<TypedMiniBatch> reads = new ArrayDeque<>(); // the batch whose rows each reads
    int[][][] ids = new int[types][0][];
    int[][] counts = new int[types][0];
    long[] rows = new long[types];
    try {
      boolean more = true;
      while (!closed) {
        while (more && wantsMore(windows, ring.size(), rows)) {
          TypedInputs in = source.next();
          if (in == null) {
            more = false;
            break;
          }
          TypedInputs held = TypedInputs.of(in.batch(), null);
          source.recycle(in);
          TypedMiniBatch r = preparer.prune(held);
          ring.addLast(held);
          reads.addLast(r);
          for (int t = 0; t < types; t++) {
            rows[t] += windows[t] == null ? 0 : r.nodes(t).length;
          }
        }
        int size = ring.size();
        if (size == 0) {
          break;
        }
        int step = PlanWindow.servedPerPlan(more, size);
        for (int t = 0; t < types; t++) {
          if (windows[t] == null) {
            continue;
          }
          if (ids[t].length < size) {
            ids[t] = new int[Math.max(size, 2 * ids[t].length)][];
            counts[t] = new int[ids[t].length];
          }
          int at = 0;
          for (TypedMiniBatch r : reads) {
            ids[t][at] = r.nodes(t);
            counts[t][at++] = r.nodes(t).length;
          }
          caches.cache(t).plan(ids[t], counts[t], size, step);
        }
        for (int i = 0; i < step; i++) {
          TypedInputs held = ring.removeFirst();
          reads.removeFirst();
          float[][] x = new float[types][];
          for (int t = 0; t < types; t++) {
            RowCache c = caches.cache(t);
            if (c == null) {
              continue;
            }
            int n = counts[t][i];
            rows[t] -= n;
            x[t] = new float[Math.multiplyExact(n, c.dim())];
            c.gather(ids[t][i], 0, n, x[t], 0);
            TypedFeatures.normalize(cfg, x[t], n, c.dim());
          }
          held.features = x;
          ready.put(held);
        }
      }
      ready.put(END);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable e) {
      try {
        ready.put(e);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Whether the window of {@code batches} batches, {@code rows[t]} rows of type {@code t}, takes
   * another batch: while any type's window asks for more and none is full.
   */
  private static boolean wantsMore(PlanWindow[] windows, int batches, long[] rows) {
    boolean more = false;
    for (int t = 0; t < windows.length; t++) {
      if (windows[t] == null) {
        continue;
      }
      if (PlanWindow.full(rows[t])) {
        return false;
      }
      more |= windows[t].wantsMore(batches, rows[t]);
    }
    return more;
  }

  @Override
  public TypedInputs next() {
    if (ended) {
      return null;
    }
    Object o = ready.poll();
    if (o == null) {
      long t0 = System.nanoTime();
      try {
        o = ready.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for batches", e);
      }
      waitNanos += System.nanoTime() - t0;
    }
    if (o instanceof RuntimeException e) {
      throw e;
    }
    if (o instanceof Throwable e) {
      throw new IllegalStateException("gathering typed features through the cache failed", e);
    }
    if (o == END) {
      ended = true;
      return null;
    }
    return (TypedInputs) o;
  }

  @Override
  public void recycle(TypedInputs in) {
    // standalone holders: nothing to hand back
  }

  @Override
  public long waitNanos() {
    return waitNanos;
  }

  @Override
  public void close() {
    closed = true;
    gatherThread.interrupt();
    boolean interrupted = false;
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (gatherThread.isAlive()) {
      long left = (deadline - System.nanoTime()) / 1_000_000;
      if (left <= 0) {
        break;
      }
      try {
        gatherThread.join(left);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    source.close();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    onClose.run();
  }
}
