package io.fanout.cli;

import io.fanout.store.InvalidInputException;
import io.fanout.train.OutOfHeapException;
import java.util.Map;

/**
 * The heap Spark needs to start a driver: 1.5 times the 300 MiB it reserves, or it refuses with
 * advice ({@code --driver-memory}) that {@code bin/fanout} does not take, after logging a stack
 * trace. Checked before a session is started, so the refusal says which setting to raise.
 */
final class SparkDriverHeap {
  private SparkDriverHeap() {}

  /** Spark's reserved memory times 1.5 ({@code UnifiedMemoryManager}). */
  static final long MIN_BYTES = 300L * 1024 * 1024 * 3 / 2;

  private static final String TESTING_MEMORY = "spark.testing.memory";

  /**
   * Refuses a heap of {@code maxHeap} bytes below {@link #MIN_BYTES}, unless {@code conf} (or a
   * system property) sets the memory Spark assumes instead.
   *
   * @throws InvalidInputException naming the heap, the least Spark takes and FANOUT_JAVA_OPTS
   */
  static void check(Map<String, String> conf, long maxHeap) {
    if (maxHeap >= MIN_BYTES
        || conf.containsKey(TESTING_MEMORY)
        || System.getProperty(TESTING_MEMORY) != null) {
      return;
    }
    throw new InvalidInputException(
        "the Java heap is "
            + OutOfHeapException.size(maxHeap)
            + " (max heap), below the "
            + OutOfHeapException.size(MIN_BYTES)
            + " Spark needs to start; raise it with FANOUT_JAVA_OPTS, e.g. FANOUT_JAVA_OPTS=-Xmx8g"
            + " (bin/fanout takes no --driver-memory; under spark-submit pass --driver-memory)");
  }
}
