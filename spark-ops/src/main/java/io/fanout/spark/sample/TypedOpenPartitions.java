package io.fanout.spark.sample;

import io.fanout.graph.TypedStorePartition;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Per-JVM cache of the typed store partitions the partitioned mode's tasks open ({@link
 * TypedStoreOpener#openPartition}), keyed by the store's fingerprint, as {@link OpenPartitions} is
 * for one-type stores: a store that differs from the run's is refused. The partitions of the {@link
 * RecentlyUsed#KEPT} store versions used last are kept, so a long-lived executor that samples many
 * runs does not hold every mapping it ever opened.
 */
final class TypedOpenPartitions {
  private TypedOpenPartitions() {}

  /** The partitions opened per store version ({@code "type#part"}), of the stores used last. */
  private static final Map<String, Map<String, TypedStorePartition>> OPEN = RecentlyUsed.map();

  /** Partition {@code part} of type {@code type} of the run's store. */
  static synchronized TypedStorePartition get(TypedSampleSpec spec, int type, int part) {
    Map<String, TypedStorePartition> store =
        OPEN.computeIfAbsent(spec.store + "#" + spec.storeFingerprint, k -> new HashMap<>());
    String key = type + "#" + part;
    TypedStorePartition sp = store.get(key);
    if (sp == null) {
      TypedStoreOpener opener = TypedStoreCache.opener(spec.opener);
      Path p = TypedStoreCache.unchanged(opener, spec);
      sp = opener.openPartition(p, type, part);
      store.put(key, sp);
    }
    return sp;
  }
}
