package io.fanout.spark.sample;

import io.fanout.sample.PartitionBatches;
import io.fanout.sample.SampleHash;
import io.fanout.sample.SeedOrder;
import io.fanout.sample.TypedBatchBuilder;
import io.fanout.sample.TypedLinkSeeds;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.sample.TypedPartialBatch;
import io.fanout.shard.TypedShardPartWriter;
import io.fanout.spark.internal.JobSteps;
import io.fanout.spark.sample.TypedHopExchange.Answer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.HashPartitioner;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * The partitioned mode on a typed store: no task opens more than one store partition of one type
 * ({@link TypedOwners}). The seed type's partitions emit their seeds under the replicated sort keys
 * ({@link PartitionedSeeds.SeedIterator}), a distributed sort orders them and cuts them into
 * batches; then, hop by hop, each batch's destinations go to the partitions of their type owning
 * them, which draw their in-neighbors over every relation into the type from their own CSR parts
 * ({@link TypedHopExchange}), and the answers are joined back to the batch (cogroup), which {@link
 * io.fanout.sample.TypedBatchBuilder} extends relation by relation as the replicated sampler does.
 * A last stage sorts the batches by part file and writes each. Link requests ({@code --task link})
 * take their seeds from the training edges of the link relation (with {@code --split val|test} its
 * held-out pairs) and start each batch's pairs with {@link TypedPartitionedLinkSeeds}; the builder
 * leaves the positives out of every hop's blocks. With {@code --batch-by-partition} the seed type's
 * partitions sort ahead of the keys in the epoch's partition rank and the sorted chunks go to
 * batches in {@link PartitionBatches#chunkOrder}, the replicated order; each batch then lives in
 * the task of its home ({@link HomePartitioner}: the seed type's partition {@code p} of its first
 * seed), which answers its requests to partition {@code p} of every type in place ({@link
 * TypedHopExchange#localAnswers}), so that task opens partition {@code p} of each type and only the
 * requests to other partitions are shuffled. With {@code --features} each part file's task gathers
 * its batches' inline rows from the store's feature files (the only part of the store it maps
 * whole), so the rows are the replicated mode's. The shards are byte-identical to the replicated
 * mode's; the Spark jobs are those of {@link PartitionedSampling}.
 */
final class TypedPartitionedSampling {
  private TypedPartitionedSampling() {}

  /**
   * @param seedsPerPartition with {@code --batch-by-partition}, the seeds of each store partition
   *     of the seed type (which place every batch at its home); otherwise null
   */
  static List<PartResult> run(
      JavaSparkContext jsc,
      TypedSampleSpec spec,
      TypedOwners owners,
      long[] seedsPerPartition,
      String staging) {
    int layers = spec.fanouts[0].length;
    long totalBatches = (long) spec.plan.batchesPerEpoch() * spec.epochs;
    int batchPartitions =
        (int) Math.max(1, Math.min(totalBatches, Math.max(2L * jsc.defaultParallelism(), 4)));
    Partitioner byBatch = new HashPartitioner(batchPartitions);
    Partitioner byOwner = new HashPartitioner(Math.max(owners.count(), 1));
    List<String> names = new ArrayList<>();
    names.add(PartitionedSampling.SORT_SEEDS);
    for (int h = 1; h <= layers; h++) {
      names.add(PartitionedSampling.hopStep(h, layers));
    }
    names.add(PartitionedSampling.WRITE_PARTS);
    JobSteps steps = new JobSteps(jsc.sc(), "sample", names);

    // 1. The seed type's seeds of every epoch, globally sorted by (epoch, sort key); of a link
    // request the training edges of its relation, held by the partitions of its destination type
    // (the seed type), each partition's under their global index, or (--split val|test) the
    // held-out pairs, one run of them per partition of that type.
    List<Integer> seedOwners = new ArrayList<>();
    for (int p = 0; p < owners.partitions(spec.seedType); p++) {
      seedOwners.add(owners.first(spec.seedType) + p);
    }
    boolean link = spec.link != null;
    boolean drawn = link && spec.link.heldOut() == null; // training edges, negatives drawn
    long[] linkOffsets =
        drawn ? TypedPartitionedLinkSeeds.offsets(jsc, spec, owners, seedOwners) : null;
    ExecutorNegatives negatives = drawn ? TypedPartitionedLinkSeeds.negatives(spec, owners) : null;
    JavaPairRDD<EpochKey, Long> keyed =
        jsc.parallelize(seedOwners, Math.max(seedOwners.size(), 1))
            .flatMapToPair(
                o ->
                    link
                        ? TypedPartitionedLinkSeeds.seeds(spec, owners, o, linkOffsets)
                        : seeds(spec, owners, o));
    // --batch-by-partition: the seeds sort by (epoch, partition rank, key); batch b holds the
    // chunk PartitionBatches.chunkOrder places there.
    int[][] chunkBatch = spec.batchByPartition ? chunkBatches(spec) : null;
    HomePartitioner home = spec.batchByPartition ? homes(jsc, spec, seedsPerPartition) : null;
    Partitioner byHome = home != null ? home : byBatch;
    JavaPairRDD<Tuple2<EpochKey, Long>, Long> indexed =
        steps.call(
            PartitionedSampling.SORT_SEEDS,
            () -> keyed.sortByKey(true, batchPartitions).zipWithIndex());
    JavaPairRDD<Long, TypedPartialBatch> state =
        indexed
            .mapToPair(
                t ->
                    PartitionedSeeds.place(
                        t._1()._1().epoch,
                        t._2(),
                        t._1()._2(),
                        spec.plan,
                        spec.batchSize,
                        chunkBatch,
                        spec.store,
                        spec.split))
            .groupByKey(byHome)
            .mapPartitionsToPair(
                it -> {
                  List<Tuple2<Long, TypedPartialBatch>> out = new ArrayList<>();
                  TypedLinkSeeds linkSeeds =
                      link ? TypedPartitionedLinkSeeds.starter(spec, negatives) : null;
                  TypedBatchBuilder builder = TypedHopExchange.builder(spec, owners);
                  it.forEachRemaining(
                      t ->
                          out.add(
                              new Tuple2<>(
                                  t._1(),
                                  link
                                      ? TypedPartitionedLinkSeeds.seedBatch(
                                          spec, linkSeeds, builder, t._1(), t._2())
                                      : seedBatch(spec, owners, t._1(), t._2()))));
                  return out.iterator();
                },
                true) // keeps the partitioner
            .persist(StorageLevel.MEMORY_AND_DISK());
    List<JavaPairRDD<Long, TypedPartialBatch>> persisted = new ArrayList<>();
    persisted.add(state);

    // 2. Hop by hop: destinations -> owning partitions -> sampled neighbors -> back to the batch.
    for (int h = 1; h <= layers; h++) {
      final int hop = h;
      if (home != null) {
        // the batch's home answers its requests to partition p of every type in place; only the
        // other partitions' nodes are shuffled
        JavaPairRDD<Long, TypedPartialBatch> current = state;
        JavaPairRDD<Long, Answer> local =
            current.mapPartitionsToPair(
                it -> TypedHopExchange.localAnswers(spec, owners, it, hop, home), true);
        JavaPairRDD<Long, Answer> remote =
            answered(
                spec,
                owners,
                hop,
                byOwner,
                current.flatMapToPair(
                    t -> TypedHopExchange.remoteRequests(spec, owners, t._1(), t._2(), home)));
        state =
            current
                .cogroup(local, remote, home)
                .mapValues(
                    t ->
                        TypedHopExchange.extend(
                            spec,
                            owners,
                            HopExchange.one(t._1()),
                            HopExchange.both(t._2(), t._3())))
                .persist(StorageLevel.MEMORY_AND_DISK());
      } else {
        JavaPairRDD<Long, Answer> answers =
            answered(
                spec,
                owners,
                hop,
                byOwner,
                state.flatMapToPair(t -> TypedHopExchange.frontier(spec, owners, t._1(), t._2())));
        state =
            state
                .cogroup(answers, byBatch)
                .mapValues(
                    t -> TypedHopExchange.extend(spec, owners, HopExchange.one(t._1()), t._2()))
                .persist(StorageLevel.MEMORY_AND_DISK());
      }
      persisted.add(state);
      JavaPairRDD<Long, TypedPartialBatch> hopState = state;
      steps.call(PartitionedSampling.hopStep(hop, layers), hopState::count);
    }

    // 3. One task per part file, its batches in order.
    int total = (int) spec.plan.totalParts();
    JavaPairRDD<Long, TypedPartialBatch> toWrite =
        state.mapToPair(t -> new Tuple2<>(PartAssembly.partKey(spec.plan, t._1()), t._2()));
    List<PartResult> out =
        steps.call(
            PartitionedSampling.WRITE_PARTS,
            () ->
                toWrite
                    .repartitionAndSortWithinPartitions(new PartAssembly.PartPartitioner(total))
                    .mapPartitionsWithIndex(
                        (index, it) -> writePart(spec, staging, index, it), false)
                    .collect());
    for (JavaPairRDD<Long, TypedPartialBatch> r : persisted) {
      r.unpersist(false);
    }
    if (home != null) {
      home.home.destroy();
    }
    return out;
  }

  /** The seeds owner {@code owner} (of the seed type) holds, every epoch: key -> vertex. */
  private static Iterator<Tuple2<EpochKey, Long>> seeds(
      TypedSampleSpec spec, TypedOwners owners, int owner) {
    var part = TypedOpenPartitions.get(spec, owners.type(owner), owners.part(owner));
    return new PartitionedSeeds.SeedIterator(
        spec.seed,
        spec.epochs,
        (int) part.firstVertex(),
        (int) part.endVertex(),
        v -> SeedOrder.inSplit(spec.splitCode, part.split(v)),
        v -> v,
        epochKey ->
            spec.batchByPartition
                ? PartitionBatches.partitionRanks(epochKey, owners.partitions(spec.seedType))[
                    owners.part(owner)]
                : 0);
  }

  /** Per epoch, the batch of each chunk of the sorted seeds ({@code --batch-by-partition}). */
  private static int[][] chunkBatches(TypedSampleSpec spec) {
    int[][] chunkBatch = new int[spec.epochs][];
    for (int e = 0; e < spec.epochs; e++) {
      chunkBatch[e] =
          PartitionBatches.batchOfChunk(
              SampleHash.epochKey(spec.seed, e), spec.plan.batchesPerEpoch());
    }
    return chunkBatch;
  }

  /**
   * {@code --batch-by-partition}: every batch's home, the seed type's partition of its first seed
   * ({@link PartitionBatches#homes} per epoch, from the partitions' seed counts).
   */
  private static HomePartitioner homes(
      JavaSparkContext jsc, TypedSampleSpec spec, long[] seedsPerPartition) {
    int[][] homes = new int[spec.epochs][];
    for (int e = 0; e < spec.epochs; e++) {
      homes[e] = PartitionBatches.homes(seedsPerPartition, spec.seed, e, spec.batchSize);
    }
    return new HomePartitioner(seedsPerPartition.length, jsc.broadcast(homes));
  }

  /** Batch {@code id} before hop 1: its seeds in position order. */
  private static TypedPartialBatch seedBatch(
      TypedSampleSpec spec, TypedOwners owners, long id, Iterable<long[]> placed) {
    long[] values = PartitionedSeeds.inOrder(id, placed);
    int[] seeds = new int[values.length];
    for (int i = 0; i < seeds.length; i++) {
      seeds[i] = (int) values[i];
    }
    return TypedPartialBatch.seeds(
        (int) (id >>> 32),
        (int) id,
        owners.numTypes(),
        spec.seedType,
        spec.fanouts[0].length,
        owners.numRelations(),
        seeds);
  }

  /** Writes part file {@code globalPart} from its batches sorted by key, checking their order. */
  static Iterator<PartResult> writePart(
      TypedSampleSpec spec,
      String staging,
      int globalPart,
      Iterator<Tuple2<Long, TypedPartialBatch>> records) {
    if (!records.hasNext()) {
      return Collections.emptyIterator();
    }
    int epoch = globalPart / spec.plan.partsPerEpoch();
    int part = globalPart % spec.plan.partsPerEpoch();
    // inline rows are gathered from the store's feature files, mapped by the writing task
    io.fanout.graph.FeatureTable[] features =
        spec.featureDims == null ? null : spec.featureTables(TypedStoreCache.open(spec));
    Iterator<TypedMiniBatch> batches =
        new Iterator<>() {
          private int expected = spec.plan.firstBatch(part);

          @Override
          public boolean hasNext() {
            return records.hasNext();
          }

          @Override
          public TypedMiniBatch next() {
            if (!records.hasNext()) {
              throw new NoSuchElementException();
            }
            TypedPartialBatch pb = records.next()._2();
            if (pb.epoch != epoch || pb.batch != expected++) {
              throw new IllegalStateException(
                  "part " + epoch + ":" + part + " lacks batch " + (expected - 1));
            }
            return pb.toMiniBatch();
          }
        };
    return List.of(
            PartFiles.write(
                spec.plan,
                spec.partObserver,
                staging,
                epoch,
                part,
                tmp ->
                    TypedShardPartWriter.write(
                        tmp,
                        batches,
                        features,
                        spec.features,
                        spec.codec(),
                        spec.metadata(epoch, part))))
        .iterator();
  }

  /**
   * The answers, keyed by batch, of {@code requests} (keyed by owner) at hop {@code hop}: each
   * request shuffled to its owner, which samples it there.
   */
  private static JavaPairRDD<Long, Answer> answered(
      TypedSampleSpec spec,
      TypedOwners owners,
      int hop,
      Partitioner byOwner,
      JavaPairRDD<Integer, HopExchange.Request> requests) {
    return requests
        .partitionBy(byOwner)
        .mapToPair(
            t ->
                new Tuple2<>(
                    t._2().batchId, TypedHopExchange.sample(spec, owners, t._1(), hop, t._2())));
  }
}
