package io.fanout.train;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The worker thread of an overlapped hot-embedding refresh ({@code --reuse-refresh overlapped}),
 * one-type and typed alike: runs the refreshes and deferred backwards it is given in order, and
 * counts the time the training thread waits for them.
 */
public final class RefreshWorker {
  private final ExecutorService pool;
  private long waitNanos;

  /** Starts the worker: one daemon thread named {@code threadName}. */
  public RefreshWorker(String threadName) {
    this.pool =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
  }

  /** Runs {@code work} on the worker after what it was given before. */
  public <T> Future<T> submit(Callable<T> work) {
    return pool.submit(work);
  }

  /**
   * Waits for {@code f}, counting the wait ({@link #waitNanos}); the worker's failure is rethrown
   * here, a {@link RuntimeException} as it is.
   */
  public void await(Future<?> f) {
    long t0 = System.nanoTime();
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the hot-embedding refresh", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      throw c instanceof RuntimeException r ? r : new IllegalStateException(c);
    } finally {
      waitNanos += System.nanoTime() - t0;
    }
  }

  /** Nanoseconds the callers of {@link #await} waited so far. */
  public long waitNanos() {
    return waitNanos;
  }

  /**
   * Waits for the {@code pending} work (null entries: none), ignoring its failures (closing after a
   * failure: the worker's own error is not the one to report), then stops the thread and waits for
   * it to end: an action leaves no {@code fanout-*} thread behind.
   */
  public void stop(Future<?>... pending) {
    for (Future<?> f : pending) {
      if (f != null) {
        try {
          await(f);
        } catch (RuntimeException ignored) {
          // reported by the step that met it
        }
      }
    }
    pool.shutdown();
    try {
      pool.awaitTermination(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
