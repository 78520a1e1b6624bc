package io.fanout.spark.sample;

import io.fanout.graph.StorePartition;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreManifest;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;

/** Per-JVM cache of opened store partitions. */
final class OpenPartitions {
  private OpenPartitions() {}

  private static final Map<String, StorePartition> OPEN = new HashMap<>();
  private static final Map<String, StoreManifest> MANIFESTS = new HashMap<>();

  static synchronized StorePartition get(SampleSpec spec, int p) {
    String key = spec.store + "#" + spec.storeFingerprint + "#" + p;
    StorePartition sp = OPEN.get(key);
    if (sp == null) {
      String fp = StoreCache.fingerprint(Paths.get(spec.store));
      if (!fp.equals(spec.storeFingerprint)) {
        throw new InvalidInputException(spec.store + ": the graph store changed during the run");
      }
      StoreManifest m =
          MANIFESTS.computeIfAbsent(
              spec.store + "#" + fp, k -> StoreManifest.read(Paths.get(spec.store)));
      sp = StorePartition.of(Paths.get(spec.store), m, p);
      OPEN.put(key, sp);
    }
    return sp;
  }
}
