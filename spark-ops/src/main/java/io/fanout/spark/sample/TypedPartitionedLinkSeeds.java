package io.fanout.spark.sample;

import io.fanout.graph.TypedStorePartition;
import io.fanout.sample.TrainEdges;
import io.fanout.sample.TypedBatchBuilder;
import io.fanout.sample.TypedLinkSeeds;
import io.fanout.sample.TypedPartialBatch;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/**
 * The seeds of {@code sample --task link --mode partitioned} on a typed store whose link relation
 * is {@code R = S -> D}: the training edges of {@code R}, held by the store partitions of type
 * {@code D} (each the edges into the vertices it owns, a contiguous run of {@link
 * TrainEdges#ofRelation}'s global order), under the replicated sort keys ({@link
 * PartitionedLinkSeeds#seeds}); after the distributed sort each batch's positives are started by
 * {@link TypedLinkSeeds}, as the replicated {@link io.fanout.sample.TypedLinkSampler} starts them.
 */
final class TypedPartitionedLinkSeeds {
  private TypedPartitionedLinkSeeds() {}

  private static final Map<String, TrainEdges> EDGES = new HashMap<>();

  /** The training edges of owner {@code owner} (a partition of type {@code D}), once per JVM. */
  static TrainEdges edges(TypedSampleSpec spec, TypedOwners owners, int owner) {
    int rel = spec.link.relation();
    String key = spec.store + "#" + spec.storeFingerprint + "#" + rel + "#" + owner;
    synchronized (EDGES) {
      TrainEdges e = EDGES.get(key);
      if (e == null) {
        TypedStorePartition part =
            TypedOpenPartitions.get(spec, owners.type(owner), owners.part(owner));
        e =
            spec.link.negatives().undirected()
                ? TrainEdges.of(
                    part.inNeighbors(rel), (int) part.firstVertex(), (int) part.endVertex(), true)
                : TrainEdges.ofRelation(
                    part.inNeighbors(rel),
                    (int) part.firstVertex(),
                    (int) part.endVertex(),
                    owners.srcType[rel] == owners.dstType[rel]);
        EDGES.put(key, e);
      }
      return e;
    }
  }

  /**
   * {@code offsets[i]}: the global index of the first training edge of {@code seedOwners.get(i)};
   * the last entry is their total, checked against the driver's count.
   */
  static long[] offsets(
      JavaSparkContext jsc, TypedSampleSpec spec, TypedOwners owners, List<Integer> seedOwners) {
    List<Integer> counts =
        jsc.parallelize(seedOwners, Math.max(seedOwners.size(), 1))
            .map(o -> edges(spec, owners, o).size())
            .collect();
    return PartitionedLinkSeeds.offsets(counts, spec.plan.seeds(), spec.store);
  }

  /**
   * The negatives over type {@code D}'s vertices, built on the executors; in the degree mode by
   * their in-degrees over {@code R}, read there from {@code D}'s partitions ({@link
   * ExecutorNegatives}).
   */
  static ExecutorNegatives negatives(TypedSampleSpec spec, TypedOwners owners) {
    int rel = spec.link.relation();
    int type = spec.seedType;
    return new ExecutorNegatives(
        spec.link.negatives().negatives(),
        owners.starts(type),
        spec.store + "#" + spec.storeFingerprint + "#" + rel,
        p -> {
          TypedStorePartition part = TypedOpenPartitions.get(spec, type, p);
          return PartitionedLinkSeeds.rowDegrees(
              part.inNeighbors(rel), part.firstVertex(), part.endVertex() - part.firstVertex());
        });
  }

  /** Owner {@code owner}'s training edges for every epoch, lazily: (epoch, sort key) -> src|dst. */
  static Iterator<Tuple2<EpochKey, Long>> seeds(
      TypedSampleSpec spec, TypedOwners owners, int owner, long offset) {
    return PartitionedLinkSeeds.seeds(edges(spec, owners, owner), offset, spec.seed, spec.epochs);
  }

  /**
   * Batch {@code id} before hop 1, from its positives ({@code {position, src|dst}}): its pairs and
   * seeds, started by {@code seeds} (one per task, reused) on {@code builder}; its labels are -1.
   */
  static TypedPartialBatch seedBatch(
      TypedSampleSpec spec,
      TypedLinkSeeds seeds,
      TypedBatchBuilder builder,
      long id,
      Iterable<long[]> placed) {
    long[] values = PartitionedSeeds.inOrder(id, placed);
    int[] src = new int[values.length];
    int[] dst = new int[values.length];
    for (int i = 0; i < values.length; i++) {
      src[i] = (int) (values[i] >>> 32);
      dst[i] = (int) values[i];
    }
    seeds.start(builder, (int) (id >>> 32), (int) id, spec.fanouts[0].length, src, dst, src.length);
    return builder.snapshot(builder.linkLabels());
  }
}
