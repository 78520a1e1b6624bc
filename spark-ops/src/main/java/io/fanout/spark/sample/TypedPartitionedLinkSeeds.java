package io.fanout.spark.sample;

import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedStorePartition;
import io.fanout.sample.TrainEdges;
import io.fanout.sample.TypedBatchBuilder;
import io.fanout.sample.TypedLinkSeeds;
import io.fanout.sample.TypedPartialBatch;
import io.fanout.store.InvalidInputException;
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
 * With {@code --split val|test} the seeds are the split's held-out pairs instead ({@link
 * HeldOutEdges}, which no store partition holds): one task per partition of {@code D} reads them
 * (once per JVM, {@link TypedStoreCache#heldOutPairs}, as a replicated task does) and emits one
 * contiguous run of the file's order, each pair under the replicated sort key of its index with its
 * endpoints and label packed in the value; each batch is then started as {@link
 * io.fanout.sample.TypedHeldOutLinkSampler} starts it ({@link TypedLinkSeeds#startHeldOut}).
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

  /**
   * The seeds owner {@code owner} (a partition of type {@code D}) emits for every epoch, lazily:
   * (epoch, sort key) -> src|dst, its training edges from global index {@code offsets[i]} on (its
   * {@code i}-th partition; {@link #offsets}), or with {@code --split val|test} its run of the
   * held-out pairs, the label in the top bit ({@code offsets} unused, null).
   */
  static Iterator<Tuple2<EpochKey, Long>> seeds(
      TypedSampleSpec spec, TypedOwners owners, int owner, long[] offsets) {
    int i = owner - owners.first(spec.seedType);
    if (spec.link.heldOut() == null) {
      return PartitionedLinkSeeds.seeds(
          edges(spec, owners, owner), offsets[i], spec.seed, spec.epochs);
    }
    HeldOutEdges pairs = TypedStoreCache.heldOutPairs(TypedStoreCache.open(spec), spec);
    if (pairs.size() != spec.plan.seeds()) {
      throw new InvalidInputException(
          spec.store
              + ": the store holds "
              + pairs.size()
              + " "
              + spec.link.heldOut()
              + " pairs, but the run was planned for "
              + spec.plan.seeds());
    }
    int runs = owners.partitions(spec.seedType);
    int from = (int) ((long) pairs.size() * i / runs);
    int to = (int) ((long) pairs.size() * (i + 1) / runs);
    return PartitionedLinkSeeds.seeds(
        to - from, k -> packed(spec, pairs, from + k), from, spec.seed, spec.epochs);
  }

  /** Held-out pair {@code e}: its label in bit 63, its source in bits 32..62, its destination. */
  private static long packed(TypedSampleSpec spec, HeldOutEdges pairs, int e) {
    byte label = pairs.label[e];
    if (label != 0 && label != 1) {
      throw new InvalidInputException(
          spec.store
              + ": "
              + spec.link.heldOut()
              + " pair "
              + e
              + " of relation '"
              + spec.link.relationName()
              + "' has label "
              + label
              + "; expected 0 or 1");
    }
    return (long) label << 63 | (long) pairs.src[e] << 32 | (pairs.dst[e] & 0xFFFFFFFFL);
  }

  /**
   * The starter of a task's batches: the training edges' with the negatives of {@code negatives},
   * or, with {@code --split val|test}, the held-out pairs' (nothing drawn; {@code negatives} null).
   */
  static TypedLinkSeeds starter(TypedSampleSpec spec, ExecutorNegatives negatives) {
    return spec.link.heldOut() == null
        ? new TypedLinkSeeds(
            spec.link.types(), negatives.sampler(), spec.link.negatives().perPositive(), spec.seed)
        : new TypedLinkSeeds(spec.link.types(), null, 1, spec.seed);
  }

  /**
   * Batch {@code id} before hop 1, from its seeds ({@code {position, value}} of {@link #seeds}):
   * its pairs and seeds, started by {@code seeds} ({@link #starter}, one per task, reused) on
   * {@code builder}; its node labels are -1.
   */
  static TypedPartialBatch seedBatch(
      TypedSampleSpec spec,
      TypedLinkSeeds seeds,
      TypedBatchBuilder builder,
      long id,
      Iterable<long[]> placed) {
    long[] values = PartitionedSeeds.inOrder(id, placed);
    int n = values.length;
    int[] src = new int[n];
    int[] dst = new int[n];
    byte[] label = new byte[n];
    for (int i = 0; i < n; i++) {
      src[i] = (int) (values[i] >>> 32) & Integer.MAX_VALUE;
      dst[i] = (int) values[i];
      label[i] = (byte) (values[i] >>> 63);
    }
    int epoch = (int) (id >>> 32);
    int layers = spec.fanouts[0].length;
    if (spec.link.heldOut() == null) {
      seeds.start(builder, epoch, (int) id, layers, src, dst, n);
    } else {
      seeds.startHeldOut(builder, epoch, (int) id, layers, src, dst, label, n);
    }
    return builder.snapshot(builder.linkLabels());
  }
}
