package io.fanout.spark;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * Counts the bytes Spark's tasks write to shuffle files (their shuffle write metrics) while it is
 * registered: {@code try (ShuffleBytes s = ShuffleBytes.start(sc)) { ...; s.bytes(); }}. Counts
 * every task of the application in that time, so concurrent jobs of other callers add to it.
 */
public final class ShuffleBytes extends SparkListener implements AutoCloseable {
  private final SparkContext sc;
  private final AtomicLong bytes = new AtomicLong();

  private ShuffleBytes(SparkContext sc) {
    this.sc = sc;
  }

  public static ShuffleBytes start(SparkContext sc) {
    ShuffleBytes s = new ShuffleBytes(sc);
    sc.addSparkListener(s);
    return s;
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    if (end.taskMetrics() != null) {
      bytes.addAndGet(end.taskMetrics().shuffleWriteMetrics().bytesWritten());
    }
  }

  /** Shuffle bytes written by the tasks that ended so far, once the listener bus is drained. */
  public long bytes() {
    try {
      sc.listenerBus().waitUntilEmpty(60_000);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain in 60 s", e);
    }
    return bytes.get();
  }

  @Override
  public void close() {
    sc.removeSparkListener(this);
  }
}
