package io.fanout.spark.internal;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * Sums two metrics of the tasks that end while it is registered: the bytes they write to shuffle
 * files and their executor CPU time. {@code try (TaskTotals t = TaskTotals.start(sc)) { ...;
 * t.shuffleBytes(); }}. Counts every task of the application in that time, so concurrent jobs of
 * other callers add to it.
 */
public final class TaskTotals extends SparkListener implements AutoCloseable {
  private final SparkContext sc;
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong cpuNanos = new AtomicLong();

  private TaskTotals(SparkContext sc) {
    this.sc = sc;
  }

  public static TaskTotals start(SparkContext sc) {
    TaskTotals s = new TaskTotals(sc);
    sc.addSparkListener(s);
    return s;
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    if (end.taskMetrics() != null) {
      bytes.addAndGet(end.taskMetrics().shuffleWriteMetrics().bytesWritten());
      cpuNanos.addAndGet(end.taskMetrics().executorCpuTime());
    }
  }

  /** Shuffle bytes written by the tasks that ended so far, once the listener bus is drained. */
  public long shuffleBytes() {
    drain();
    return bytes.get();
  }

  /** Executor CPU seconds of the tasks that ended so far, once the listener bus is drained. */
  public double cpuSeconds() {
    drain();
    return cpuNanos.get() / 1e9;
  }

  private void drain() {
    try {
      sc.listenerBus().waitUntilEmpty(60_000);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain in 60 s", e);
    }
  }

  @Override
  public void close() {
    sc.removeSparkListener(this);
  }
}
