package io.fanout.train;

import io.fanout.store.InvalidInputException;
import java.util.Locale;

/**
 * A training run that does not fit in the Java heap: refused before it starts when the sizes known
 * up front already exceed the heap, or stopped when the heap ran out. The message gives the heap
 * size, the batch size and the options that change them; the model dir keeps only complete
 * checkpoints, and none is created for a run that completed no epoch.
 */
public final class OutOfHeapException extends InvalidInputException {
  private static final double GIB = 1L << 30;

  OutOfHeapException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * {@code bytes} as people read a heap size: {@code "1.5 GiB"}, or {@code "512 MiB"} below 1 GiB.
   */
  public static String size(long bytes) {
    return bytes >= GIB
        ? String.format(Locale.ROOT, "%.1f GiB", bytes / GIB)
        : String.format(Locale.ROOT, "%d MiB", (bytes + (1 << 20) - 1) >> 20);
  }

  /** How to give the JVM a heap of at least {@code bytes}, for bin/fanout and spark-submit. */
  public static String moreHeap(long bytes) {
    return "give the JVM more heap (FANOUT_JAVA_OPTS=-Xmx"
        + (long) Math.ceil(bytes / GIB)
        + "g for bin/fanout; spark.driver.memory or spark.executor.memory with spark-submit)";
  }
}
