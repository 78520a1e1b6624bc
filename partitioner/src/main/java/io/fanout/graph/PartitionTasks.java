package io.fanout.graph;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs one task per partition of an id range, in parallel, each partition alone. */
final class PartitionTasks {
  /** The work on partition {@code [lo, hi)}. */
  @FunctionalInterface
  interface Task {
    void run(int partition, int lo, int hi) throws Exception;
  }

  private PartitionTasks() {}

  /**
   * Runs {@code task} on every partition {@code [starts[p], starts[p+1])} on up to {@code threads}
   * threads and waits for all. A task's runtime exception is rethrown as is; another failure, or an
   * interrupt, becomes an {@link IllegalStateException} naming {@code what} (e.g. "ordering feature
   * rows").
   */
  static void run(long[] starts, int threads, String what, Task task) {
    int parts = starts.length - 1;
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, parts)));
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int p = 0; p < parts; p++) {
        int part = p;
        int lo = (int) starts[p];
        int hi = (int) starts[p + 1];
        done.add(
            pool.submit(
                () -> {
                  task.run(part, lo, hi);
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + what, e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException re
          ? re
          : new IllegalStateException(what + " failed", e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }
}
