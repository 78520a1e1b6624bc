package io.fanout.spark.sample;

import io.fanout.sample.BatchBuilder;
import io.fanout.sample.NodeSampler;
import io.fanout.sample.PairSet;
import io.fanout.sample.PartialBatch;
import io.fanout.sample.PartitionBatches;
import io.fanout.sample.SampleHash;
import io.fanout.sample.SeedOrder;
import io.fanout.sample.WeightedNodeSampler;
import io.fanout.shard.FeatureEncoding;
import io.fanout.spark.internal.JobSteps;
import io.fanout.spark.sample.HopExchange.Answer;
import io.fanout.store.StoreManifest;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.HashPartitioner;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * The partitioned mode (AGL / TF-GNN model): no task maps more than one store partition. Seeds are
 * ordered by a distributed sort on {@link SeedOrder#sortKey}; then, hop by hop, every batch's
 * frontier is shipped to the partitions owning its nodes, each partition samples its nodes with
 * {@link NodeSampler#sampleNeighbors} (weighted: {@link WeightedNodeSampler#sampleNeighbors} over
 * the partition's weights; the same hash-keyed draws as the replicated sampler), and the answers
 * are joined back to the batch, which {@link BatchBuilder} extends in destination order. Feature
 * rows are joined the same way. Link requests ({@code --task link}) take their seeds and pairs from
 * {@link PartitionedLinkSeeds} and drop each batch's positive edges from every hop with {@link
 * PairSet#dropFrom}, as the replicated sampler does. Shards are byte-identical to the replicated
 * mode's.
 *
 * <p>This class plans the stages and their Spark jobs; the seeds are {@link PartitionedSeeds}, a
 * hop's exchange {@link HopExchange}, the part files {@link PartAssembly}.
 */
final class PartitionedSampling {
  private PartitionedSampling() {}

  static List<PartResult> run(
      JavaSparkContext jsc, SampleSpec spec, StoreManifest sm, String staging) {
    int parts = sm.partitions;
    long[] firsts = new long[parts + 1];
    for (int p = 0; p < parts; p++) {
      firsts[p + 1] = firsts[p] + sm.partitionTable.get(p).numVertices;
    }
    int batchSize = spec.batchSize;
    long totalBatches = (long) spec.plan.batchesPerEpoch() * spec.epochs;
    int batchPartitions =
        (int) Math.max(1, Math.min(totalBatches, Math.max(2L * jsc.defaultParallelism(), 4)));
    Partitioner byBatch = new HashPartitioner(batchPartitions);
    Partitioner byOwner = new HashPartitioner(Math.max(parts, 1));

    List<Integer> partitionIds = new ArrayList<>();
    for (int p = 0; p < parts; p++) {
      partitionIds.add(p);
    }
    List<String> names = new ArrayList<>();
    boolean byPartition = spec.batchByPartition;
    if (byPartition) {
      names.add(COUNT_SEEDS);
    }
    names.add(SORT_SEEDS);
    for (int h = 1; h <= spec.fanouts.length; h++) {
      names.add(hopStep(h, spec.fanouts.length));
    }
    names.add(WRITE_PARTS);
    JobSteps steps = new JobSteps(jsc.sc(), "sample", names);

    // Link requests: the seeds are training edges, each partition's under their global index.
    long[] linkOffsets = spec.link == null ? null : PartitionedLinkSeeds.offsets(jsc, spec, parts);
    ExecutorNegatives negatives =
        spec.link == null ? null : PartitionedLinkSeeds.negatives(spec, firsts);

    // 0. --batch-by-partition: the driver places every batch from the partitions' seed counts.
    Broadcast<int[][]> batchOfChunk = null;
    Partitioner home = null;
    if (byPartition) {
      List<Long> counts =
          steps.call(
              COUNT_SEEDS,
              () ->
                  jsc.parallelize(partitionIds, Math.max(parts, 1))
                      .map(p -> PartitionedSeeds.countSeeds(spec, p))
                      .collect());
      long[] perPartition = new long[parts];
      for (int p = 0; p < parts; p++) {
        perPartition[p] = counts.get(p);
      }
      int[][] chunkBatch = new int[spec.epochs][];
      int[][] homes = new int[spec.epochs][];
      for (int e = 0; e < spec.epochs; e++) {
        chunkBatch[e] =
            PartitionBatches.batchOfChunk(
                SampleHash.epochKey(spec.seed, e), spec.plan.batchesPerEpoch());
        homes[e] = PartitionBatches.homes(perPartition, spec.seed, e, batchSize);
      }
      batchOfChunk = jsc.broadcast(chunkBatch);
      home = new HomePartitioner(parts, jsc.broadcast(homes));
    }
    Broadcast<int[][]> chunks = batchOfChunk;
    Partitioner byHome = byPartition ? home : byBatch;

    // 1. Seeds of every epoch, globally sorted by (epoch, sort key), or with --batch-by-partition
    // by (epoch, partition rank, sort key). The range sort and the index start jobs of their own
    // (bounds, partition sizes) as the RDD is built.
    JavaPairRDD<EpochKey, Long> keyed =
        jsc.parallelize(partitionIds, Math.max(parts, 1))
            .flatMapToPair(
                p ->
                    spec.link == null
                        ? PartitionedSeeds.seeds(spec, p)
                        : PartitionedLinkSeeds.seeds(spec, p, linkOffsets[p]));
    JavaPairRDD<Tuple2<EpochKey, Long>, Long> indexed =
        steps.call(SORT_SEEDS, () -> keyed.sortByKey(true, batchPartitions).zipWithIndex());
    JavaPairRDD<Long, PartialBatch> state =
        indexed
            .mapToPair(
                t ->
                    PartitionedSeeds.place(
                        t._1()._1().epoch,
                        t._2(),
                        t._1()._2(),
                        spec.plan,
                        batchSize,
                        chunks == null ? null : chunks.value(),
                        spec.store,
                        spec.split))
            .groupByKey(byHome)
            .mapPartitionsToPair(
                it -> new PartitionedSeeds.SeedBatches(spec, negatives, it),
                true); // keeps the partitioner
    state = state.persist(StorageLevel.MEMORY_AND_DISK());
    List<JavaPairRDD<Long, PartialBatch>> persisted = new ArrayList<>();
    persisted.add(state);

    // 2. Hop by hop: frontier -> owning partitions -> sampled neighbors -> back to the batch.
    for (int h = 1; h <= spec.fanouts.length; h++) {
      final int hop = h;
      if (byPartition) {
        // the batch's own partition answers its nodes in place; only the others' are shuffled
        HomePartitioner hp = (HomePartitioner) home;
        JavaPairRDD<Long, PartialBatch> current = state;
        JavaPairRDD<Long, Answer> local =
            current.mapPartitionsToPair(
                it -> HopExchange.localAnswers(spec, it, firsts, hop, hp), true);
        JavaPairRDD<Long, Answer> remote =
            current
                .flatMapToPair(t -> HopExchange.remoteRequests(t._1(), t._2(), firsts, hp))
                .partitionBy(byOwner)
                .mapToPair(
                    t ->
                        new Tuple2<>(
                            t._2().batchId, HopExchange.sample(spec, t._1(), hop, t._2())));
        state =
            current
                .cogroup(local, remote, home)
                .mapValues(
                    t ->
                        HopExchange.extend(
                            spec, HopExchange.one(t._1()), HopExchange.both(t._2(), t._3())))
                .persist(StorageLevel.MEMORY_AND_DISK());
      } else {
        JavaPairRDD<Long, Answer> answers =
            state
                .flatMapToPair(t -> HopExchange.frontier(t._1(), t._2(), firsts))
                .partitionBy(byOwner)
                .mapToPair(
                    t ->
                        new Tuple2<>(
                            t._2().batchId, HopExchange.sample(spec, t._1(), hop, t._2())));
        state =
            state
                .cogroup(answers, byBatch)
                .mapValues(t -> HopExchange.extend(spec, HopExchange.one(t._1()), t._2()))
                .persist(StorageLevel.MEMORY_AND_DISK());
      }
      persisted.add(state);
      // Computed (and cached) hop by hop, so that each hop is a job of its own in the UI.
      JavaPairRDD<Long, PartialBatch> hopState = state;
      steps.call(hopStep(hop, spec.fanouts.length), hopState::count);
    }

    // 3. Every batch and, if features are inlined, its feature rows (fetched from the partitions
    // owning its nodes, in chunks of about 1 MB) go to the task writing its part file, keyed
    // part << 32 | batch, so Spark's sort streams each part's batches in order and can spill.
    int partsPerEpoch = spec.plan.partsPerEpoch();
    int total = (int) spec.plan.totalParts();
    JavaPairRDD<Long, Object> toWrite =
        state.mapToPair(t -> new Tuple2<>(PartAssembly.partKey(spec, t._1()), (Object) t._2()));
    if (spec.features != FeatureEncoding.NONE) {
      toWrite =
          toWrite.union(
              state
                  .flatMapToPair(t -> HopExchange.frontier(t._1(), t._2(), firsts))
                  .partitionBy(byOwner)
                  .flatMapToPair(t -> PartAssembly.features(spec, t._1(), t._2())));
    }

    // 4. One task per part file.
    JavaPairRDD<Long, Object> written = toWrite;
    List<PartResult> out =
        steps.call(
            WRITE_PARTS,
            () ->
                written
                    .repartitionAndSortWithinPartitions(new PartAssembly.PartPartitioner(total))
                    .mapPartitionsWithIndex(
                        (index, it) -> PartAssembly.writePart(spec, staging, index, it), false)
                    .collect());
    for (JavaPairRDD<Long, PartialBatch> r : persisted) {
      r.unpersist(false);
    }
    if (byPartition) {
      chunks.destroy();
      ((HomePartitioner) home).home.destroy();
    }
    return out;
  }

  static final String COUNT_SEEDS = "count seeds per partition";
  static final String SORT_SEEDS = "sort seeds";
  static final String WRITE_PARTS = "gather batches and write part files";

  static String hopStep(int hop, int hops) {
    return "sample hop " + hop + " of " + hops;
  }

  static long batchId(int epoch, int batch) {
    return (long) epoch << 32 | (batch & 0xFFFFFFFFL);
  }
}
