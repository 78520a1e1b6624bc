package io.fanout.spark.sample;

import io.fanout.graph.StorePartition;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreManifest;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;

/**
 * Per-JVM cache of the one-type store partitions the partitioned mode's tasks open, keyed by the
 * store's fingerprint: a store that differs from the run's is refused. The manifest and partitions
 * of the {@link RecentlyUsed#KEPT} store versions used last are kept, so a long-lived executor that
 * samples many runs does not hold every mapping it ever opened.
 */
final class OpenPartitions {
  private OpenPartitions() {}

  /** The manifest and opened partitions of one store version. */
  private static final class StoreVersion {
    final StoreManifest manifest;
    final Map<Integer, StorePartition> partitions = new HashMap<>();

    StoreVersion(StoreManifest manifest) {
      this.manifest = manifest;
    }
  }

  private static final Map<String, StoreVersion> OPEN = RecentlyUsed.map();

  static synchronized StorePartition get(SampleSpec spec, int p) {
    String version = spec.store + "#" + spec.storeFingerprint;
    StoreVersion store = OPEN.get(version);
    if (store == null || !store.partitions.containsKey(p)) {
      String fp = StoreCache.fingerprint(Paths.get(spec.store));
      if (!fp.equals(spec.storeFingerprint)) {
        throw new InvalidInputException(spec.store + ": the graph store changed during the run");
      }
    }
    if (store == null) {
      store = new StoreVersion(StoreManifest.read(Paths.get(spec.store)));
      OPEN.put(version, store);
    }
    StoreManifest m = store.manifest;
    return store.partitions.computeIfAbsent(p, k -> StorePartition.of(Paths.get(spec.store), m, k));
  }
}
