package io.fanout.spark.sample;

import io.fanout.graph.GraphStore;
import io.fanout.sample.PartitionBatches;
import io.fanout.sample.SeedOrder;
import io.fanout.sample.TrainEdges;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Per-JVM cache of opened (memory-mapped) stores and epoch seed orders, so the tasks an executor
 * runs share one mapping. Keyed by the store's fingerprint: a store replaced at the same path is
 * opened afresh, and a store that differs from the run's is refused.
 */
final class StoreCache {
  private StoreCache() {}

  private static final Map<String, GraphStore> STORES = new LinkedHashMap<>();
  private static final Map<String, int[]> ORDERS = RecentlyUsed.map();

  /** SHA-256 of the store's {@code manifest.json}, which lists every file's CRC32C. */
  static String fingerprint(Path store) {
    return io.fanout.shard.ShardManifest.storeFingerprint(store);
  }

  static synchronized GraphStore open(String path, String expectedFingerprint) {
    Path p = Paths.get(path);
    String fp = fingerprint(p);
    checkUnchanged(p, fp, expectedFingerprint);
    String key = p.toAbsolutePath() + "#" + fp;
    GraphStore g = STORES.get(key);
    if (g == null) {
      g = GraphStore.open(p);
      // the version opened is the one read now: it may have been replaced since the check above
      checkUnchanged(p, g.manifest().fingerprint(), expectedFingerprint);
      STORES.put(key, g);
    }
    return g;
  }

  private static void checkUnchanged(Path p, String fp, String expectedFingerprint) {
    if (!fp.equals(expectedFingerprint)) {
      throw new InvalidInputException(
          p
              + ": the graph store changed during the run (fingerprint "
              + fp
              + ", run started with "
              + expectedFingerprint
              + ")");
    }
  }

  private static final Map<String, TrainEdges> EDGES = new LinkedHashMap<>();

  /** The training edges of a link-prediction request, computed once per JVM and store. */
  static TrainEdges trainEdges(GraphStore store, SampleSpec spec) {
    String key = spec.storeFingerprint + "#" + spec.link.undirected();
    synchronized (EDGES) {
      return EDGES.computeIfAbsent(key, k -> TrainEdges.of(store.csr(), spec.link.undirected()));
    }
  }

  /** The seed order of {@code epoch}, computed once per JVM. */
  static int[] order(GraphStore store, SampleSpec spec, int epoch) {
    String key =
        spec.storeFingerprint
            + "#"
            + (spec.link != null ? "link" : spec.splitCode)
            + "#"
            + spec.seed
            + "#"
            + epoch
            + (spec.batchByPartition ? "#by-partition#" + spec.batchSize : "");
    synchronized (ORDERS) {
      int[] o = ORDERS.get(key);
      if (o == null) {
        o =
            spec.link != null
                ? SeedOrder.order(trainEdges(store, spec).ids(), spec.seed, epoch)
                : spec.batchByPartition
                    ? PartitionBatches.order(
                        store.vertices(),
                        spec.firsts,
                        spec.splitCode,
                        spec.seed,
                        epoch,
                        spec.batchSize)
                    : SeedOrder.order(store.vertices(), spec.splitCode, spec.seed, epoch);
        ORDERS.put(key, o);
      }
      if (o.length != spec.plan.seeds()) {
        throw new InvalidInputException(
            spec.store
                + ": split '"
                + spec.split
                + "' has "
                + o.length
                + " vertices in the nodes files but "
                + spec.plan.seeds()
                + " in "
                + StoreLayout.MANIFEST);
      }
      return o;
    }
  }
}
