package io.fanout.spark.sample;

import io.fanout.graph.TypedStorePartition;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Per-JVM cache of the typed store partitions the partitioned mode's tasks open ({@link
 * TypedStoreOpener#openPartition}), keyed by the store's fingerprint, as {@link OpenPartitions} is
 * for one-type stores: a store that differs from the run's is refused.
 */
final class TypedOpenPartitions {
  private TypedOpenPartitions() {}

  private static final Map<String, TypedStorePartition> OPEN = new HashMap<>();

  /** Partition {@code part} of type {@code type} of the run's store. */
  static synchronized TypedStorePartition get(TypedSampleSpec spec, int type, int part) {
    String key = spec.store + "#" + spec.storeFingerprint + "#" + type + "#" + part;
    TypedStorePartition sp = OPEN.get(key);
    if (sp == null) {
      TypedStoreOpener opener = TypedStoreCache.opener(spec.opener);
      Path p = TypedStoreCache.unchanged(opener, spec);
      sp = opener.openPartition(p, type, part);
      OPEN.put(key, sp);
    }
    return sp;
  }
}
