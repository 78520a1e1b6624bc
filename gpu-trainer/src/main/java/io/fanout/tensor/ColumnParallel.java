package io.fanout.tensor;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Splits a row-major operation by column ranges across the cores. Each output element is still
 * computed by one thread in the serial order over rows and edges, so results are bit-identical
 * whatever the thread count. Small operations run inline.
 */
final class ColumnParallel {
  /** Below this many element updates an operation runs on the calling thread. */
  static final long MIN_WORK = 1L << 20;

  static final int THREADS =
      Integer.getInteger("fanout.cpu.threads", Runtime.getRuntime().availableProcessors());

  /** How long an idle pool thread lives, so that no thread outlives the work that needed it. */
  static final long IDLE_MILLIS = 1000;

  private static final AtomicInteger THREAD_IDS = new AtomicInteger();

  private static final ExecutorService POOL = pool();

  private static ExecutorService pool() {
    ThreadPoolExecutor p =
        new ThreadPoolExecutor(
            Math.max(1, THREADS),
            Math.max(1, THREADS),
            IDLE_MILLIS,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "fanout-cpu-" + THREAD_IDS.getAndIncrement());
              t.setDaemon(true);
              return t;
            });
    p.allowCoreThreadTimeOut(true);
    return p;
  }

  private ColumnParallel() {}

  private static int split(int cols, int p, int parts, int align) {
    return (int) ((long) cols * p / parts / align * align);
  }

  interface Range {
    void run(int c0, int c1);
  }

  static void run(long work, int cols, Range body) {
    run(work, cols, 1, body);
  }

  /**
   * As {@link #run(long, int, Range)}, with every split point a multiple of {@code align} (the last
   * range ends at {@code cols}).
   */
  static void runAligned(long work, int cols, int align, Range body) {
    run(work, cols, align, body);
  }

  private static void run(long work, int cols, int align, Range body) {
    int parts = (int) Math.min(THREADS, cols / Math.max(16, align));
    if (work < MIN_WORK || parts <= 1) {
      body.run(0, cols);
      return;
    }
    Future<?>[] fs = new Future<?>[parts - 1];
    for (int p = 1; p < parts; p++) {
      int c0 = split(cols, p, parts, align);
      int c1 = p + 1 == parts ? cols : split(cols, p + 1, parts, align);
      fs[p - 1] = POOL.submit(() -> body.run(c0, c1));
    }
    body.run(0, split(cols, 1, parts, align));
    for (Future<?> f : fs) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException("a parallel CPU operation failed", e.getCause());
      }
    }
  }
}
