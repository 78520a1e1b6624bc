package io.fanout.spark.sample;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The eviction policy of the per-JVM sampling caches whose entries belong to one run (epoch seed
 * orders, the partitions mapped for one store version): at most {@link #KEPT} entries, the least
 * recently used evicted first. An evicted value is only dropped, never closed, so a task that still
 * holds it keeps using it.
 */
final class RecentlyUsed {
  /** Entries a cache keeps. */
  static final int KEPT = 4;

  private RecentlyUsed() {}

  /** An empty map in access order that drops its least recently used entry beyond {@link #KEPT}. */
  static <K, V> Map<K, V> map() {
    return new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> e) {
        return size() > KEPT;
      }
    };
  }
}
