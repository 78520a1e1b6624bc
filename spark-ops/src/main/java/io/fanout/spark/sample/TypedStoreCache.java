package io.fanout.spark.sample;

import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedGraph;
import io.fanout.sample.PartitionBatches;
import io.fanout.sample.SeedOrder;
import io.fanout.sample.TrainEdges;
import io.fanout.spark.internal.Hooks;
import io.fanout.store.InvalidInputException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Per-JVM cache of opened typed stores and epoch seed orders, as {@link StoreCache} is for one-type
 * stores: keyed by the store's fingerprint, so a store replaced at the same path is opened afresh
 * and one that differs from the run's is refused.
 */
final class TypedStoreCache {
  private TypedStoreCache() {}

  private static final Map<String, TypedGraph> STORES = new LinkedHashMap<>();
  private static final Map<String, int[]> ORDERS = RecentlyUsed.map();

  static TypedStoreOpener opener(String className) {
    return Hooks.instantiate(Hooks.TYPED_STORE_OPENER, className, TypedStoreOpener.class);
  }

  static synchronized TypedGraph open(TypedSampleSpec spec) {
    TypedStoreOpener opener = opener(spec.opener);
    Path p = unchanged(opener, spec);
    return STORES.computeIfAbsent(
        p.toAbsolutePath() + "#" + spec.storeFingerprint, k -> opener.open(p, false));
  }

  /**
   * The run's store, refused when its fingerprint is no longer the one the run started with (the
   * store was replaced between the driver's check and this task).
   */
  static Path unchanged(TypedStoreOpener opener, TypedSampleSpec spec) {
    Path p = Paths.get(spec.store);
    String fp = opener.fingerprint(p);
    if (!fp.equals(spec.storeFingerprint)) {
      throw new InvalidInputException(
          p
              + ": the graph store changed during the run (fingerprint "
              + fp
              + ", run started with "
              + spec.storeFingerprint
              + ")");
    }
    return p;
  }

  /** The seed ids of a link request: its training edges' or held-out pairs' indices. */
  private static int[] linkSeeds(TypedGraph g, TypedSampleSpec spec) {
    if (spec.link.heldOut() == null) {
      return trainEdges(g, spec).ids();
    }
    int[] ids = new int[heldOutPairs(g, spec).size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    return ids;
  }

  private static final Map<String, TrainEdges> EDGES = new LinkedHashMap<>();

  /** The training edges of a link request's relation, computed once per JVM and store. */
  static TrainEdges trainEdges(TypedGraph g, TypedSampleSpec spec) {
    String key = spec.storeFingerprint + "#" + spec.link.relation();
    synchronized (EDGES) {
      return EDGES.computeIfAbsent(key, k -> spec.link.trainEdges(g));
    }
  }

  private static final Map<String, HeldOutEdges> HELD_OUT = new LinkedHashMap<>();

  /** The held-out pairs of a link request's split, read once per JVM and store. */
  static HeldOutEdges heldOutPairs(TypedGraph g, TypedSampleSpec spec) {
    String key = spec.storeFingerprint + "#" + spec.link.relation() + "#" + spec.link.heldOut();
    synchronized (HELD_OUT) {
      return HELD_OUT.computeIfAbsent(key, k -> spec.link.heldOutPairs(g, Paths.get(spec.store)));
    }
  }

  /**
   * The seed order of {@code epoch}: the seed type's split members, shuffled (with {@code
   * --batch-by-partition} in {@link PartitionBatches#order}); for a link request the training
   * edges' indices (of {@code --split val|test}: the held-out pairs' indices), shuffled.
   */
  static int[] order(TypedGraph g, TypedSampleSpec spec, int epoch) {
    String key =
        spec.storeFingerprint
            + "#"
            + (spec.link != null ? "link" + spec.link.relation() : spec.seedType)
            + "#"
            + spec.splitCode
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
                ? SeedOrder.order(linkSeeds(g, spec), spec.seed, epoch)
                : spec.batchByPartition
                    ? PartitionBatches.order(
                        g.vertices(spec.seedType),
                        g.partitionStarts(spec.seedType),
                        spec.splitCode,
                        spec.seed,
                        epoch,
                        spec.batchSize)
                    : SeedOrder.order(g.vertices(spec.seedType), spec.splitCode, spec.seed, epoch);
        ORDERS.put(key, o);
      }
      if (o.length != spec.plan.seeds()) {
        throw new IllegalStateException(
            spec.store
                + ": "
                + o.length
                + " seeds in epoch "
                + epoch
                + ", expected "
                + spec.plan.seeds());
      }
      return o;
    }
  }
}
