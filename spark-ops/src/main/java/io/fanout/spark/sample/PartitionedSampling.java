package io.fanout.spark.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import io.fanout.graph.StorePartition;
import io.fanout.sample.BatchBuilder;
import io.fanout.sample.LinkPairs;
import io.fanout.sample.NegativeSampler;
import io.fanout.sample.NodeSampler;
import io.fanout.sample.PairSet;
import io.fanout.sample.PartialBatch;
import io.fanout.sample.PartitionBatches;
import io.fanout.sample.SampleHash;
import io.fanout.sample.SeedOrder;
import io.fanout.sample.WeightedNodeSampler;
import io.fanout.shard.BatchCodec;
import io.fanout.shard.EncodedBatch;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardPartWriter;
import io.fanout.spark.internal.JobSteps;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreManifest;
import java.io.Serializable;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
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
    long seedsPerEpoch = spec.plan.seeds();
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
    Broadcast<NegativeSampler> negatives =
        spec.link == null ? null : jsc.broadcast(PartitionedLinkSeeds.negatives(jsc, spec, firsts));

    // 0. --batch-by-partition: the driver places every batch from the partitions' seed counts.
    Broadcast<int[][]> batchOfChunk = null;
    Partitioner home = null;
    if (byPartition) {
      List<Long> counts =
          steps.call(
              COUNT_SEEDS,
              () ->
                  jsc.parallelize(partitionIds, Math.max(parts, 1))
                      .map(p -> countSeeds(spec, p))
                      .collect());
      long[] perPartition = new long[parts];
      for (int p = 0; p < parts; p++) {
        perPartition[p] = counts.get(p);
      }
      int[][] chunkBatch = new int[spec.epochs][];
      int[][] homes = new int[spec.epochs][];
      for (int e = 0; e < spec.epochs; e++) {
        int[] order =
            PartitionBatches.chunkOrder(
                SampleHash.epochKey(spec.seed, e), spec.plan.batchesPerEpoch());
        chunkBatch[e] = new int[order.length];
        for (int b = 0; b < order.length; b++) {
          chunkBatch[e][order[b]] = b;
        }
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
                        ? new SeedIterator(spec, p)
                        : PartitionedLinkSeeds.seeds(spec, p, linkOffsets[p]));
    JavaPairRDD<Tuple2<EpochKey, Long>, Long> indexed =
        steps.call(SORT_SEEDS, () -> keyed.sortByKey(true, batchPartitions).zipWithIndex());
    JavaPairRDD<Long, PartialBatch> state =
        indexed
            .mapToPair(
                t -> {
                  int epoch = t._1()._1().epoch;
                  long idx = t._2() - epoch * seedsPerEpoch;
                  if (idx < 0 || idx >= seedsPerEpoch) {
                    throw new InvalidInputException(
                        spec.store
                            + ": split '"
                            + spec.split
                            + "' has a different number of vertices in the nodes files than "
                            + seedsPerEpoch
                            + " in its manifest");
                  }
                  int batch = (int) (idx / batchSize);
                  if (chunks != null) {
                    batch = chunks.value()[epoch][batch];
                  }
                  long packed = t._1()._2();
                  return new Tuple2<>(batchId(epoch, batch), new long[] {idx % batchSize, packed});
                })
            .groupByKey(byHome)
            .mapPartitionsToPair(
                it -> new SeedBatches(spec, negatives, it), true); // keeps the partitioner
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
            current.mapPartitionsToPair(it -> localAnswers(spec, it, firsts, hop, hp), true);
        JavaPairRDD<Long, Answer> remote =
            current
                .flatMapToPair(t -> remoteRequests(t._1(), t._2(), firsts, hp))
                .partitionBy(byOwner)
                .mapToPair(t -> new Tuple2<>(t._2().batchId, sample(spec, t._1(), hop, t._2())));
        state =
            current
                .cogroup(local, remote, home)
                .mapValues(t -> extend(spec, one(t._1()), both(t._2(), t._3())))
                .persist(StorageLevel.MEMORY_AND_DISK());
      } else {
        JavaPairRDD<Long, Answer> answers =
            state
                .flatMapToPair(t -> frontier(t._1(), t._2(), firsts))
                .partitionBy(byOwner)
                .mapToPair(t -> new Tuple2<>(t._2().batchId, sample(spec, t._1(), hop, t._2())));
        state =
            state
                .cogroup(answers, byBatch)
                .mapValues(t -> extend(spec, one(t._1()), t._2()))
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
        state.mapToPair(t -> new Tuple2<>(partKey(spec, t._1()), (Object) t._2()));
    if (spec.features != FeatureEncoding.NONE) {
      toWrite =
          toWrite.union(
              state
                  .flatMapToPair(t -> frontier(t._1(), t._2(), firsts))
                  .partitionBy(byOwner)
                  .flatMapToPair(t -> features(spec, t._1(), t._2())));
    }

    // 4. One task per part file.
    JavaPairRDD<Long, Object> written = toWrite;
    List<PartResult> out =
        steps.call(
            WRITE_PARTS,
            () ->
                written
                    .repartitionAndSortWithinPartitions(new PartPartitioner(total))
                    .mapPartitionsWithIndex(
                        (index, it) -> writePart(spec, staging, index, it), false)
                    .collect());
    for (JavaPairRDD<Long, PartialBatch> r : persisted) {
      r.unpersist(false);
    }
    if (negatives != null) {
      negatives.destroy();
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

  /** (epoch, sort key) ordered as the replicated sampler's sort of sort keys. */
  static final class EpochKey implements Comparable<EpochKey>, Serializable {
    private static final long serialVersionUID = 1L;
    final int epoch;

    /** The partition's rank in the epoch with --batch-by-partition; else 0. */
    final int group;

    final long key;

    EpochKey(int epoch, int group, long key) {
      this.epoch = epoch;
      this.group = group;
      this.key = key;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof EpochKey k && k.epoch == epoch && k.group == group && k.key == key;
    }

    @Override
    public int hashCode() {
      return (Long.hashCode(key) * 31 + epoch) * 31 + group;
    }

    @Override
    public int compareTo(EpochKey o) {
      int c = Integer.compare(epoch, o.epoch);
      if (c == 0) {
        c = Integer.compare(group, o.group);
      }
      return c != 0 ? c : Long.compare(key, o.key);
    }
  }

  /** The seeds a partition owns, for every epoch, lazily: (epoch, sort key) -> label|vertex. */
  private static final class SeedIterator implements Iterator<Tuple2<EpochKey, Long>> {
    private final StorePartition part;
    private final SampleSpec spec;
    private final int first;
    private final int end;
    private int epoch;
    private final int p;
    private int v;
    private long epochKey;
    private int group;

    SeedIterator(SampleSpec spec, int p) {
      this.spec = spec;
      this.p = p;
      this.part = Partitions.get(spec, p);
      this.first = (int) part.firstVertex();
      this.end = (int) (part.firstVertex() + part.numVertices());
      this.v = first;
      startEpoch();
      advance();
    }

    private void startEpoch() {
      epochKey = SampleHash.epochKey(spec.seed, epoch);
      group =
          spec.batchByPartition
              ? PartitionBatches.partitionRanks(epochKey, spec.firsts.length - 1)[p]
              : 0;
    }

    private void advance() {
      while (epoch < spec.epochs) {
        while (v < end) {
          if (SeedOrder.inSplit(spec.splitCode, part.split(v))) {
            return;
          }
          v++;
        }
        epoch++;
        v = first;
        if (epoch < spec.epochs) {
          startEpoch();
        }
      }
    }

    @Override
    public boolean hasNext() {
      return epoch < spec.epochs;
    }

    @Override
    public Tuple2<EpochKey, Long> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      long packed = (long) part.label(v) << 32 | (v & 0xFFFFFFFFL);
      Tuple2<EpochKey, Long> t =
          new Tuple2<>(new EpochKey(epoch, group, SeedOrder.sortKey(epochKey, v)), packed);
      v++;
      advance();
      return t;
    }
  }

  /** The seeds of a partition's batches, built one batch at a time as the task pulls them. */
  private static final class SeedBatches implements Iterator<Tuple2<Long, PartialBatch>> {
    private final SampleSpec spec;
    private final Broadcast<NegativeSampler> negatives;
    private final Iterator<Tuple2<Long, Iterable<long[]>>> in;

    SeedBatches(
        SampleSpec spec,
        Broadcast<NegativeSampler> negatives,
        Iterator<Tuple2<Long, Iterable<long[]>>> in) {
      this.spec = spec;
      this.negatives = negatives;
      this.in = in;
    }

    @Override
    public boolean hasNext() {
      return in.hasNext();
    }

    @Override
    public Tuple2<Long, PartialBatch> next() {
      Tuple2<Long, Iterable<long[]>> t = in.next();
      return new Tuple2<>(
          t._1(),
          spec.link == null
              ? seedBatch(spec, t._1(), t._2())
              : PartitionedLinkSeeds.seedBatch(spec, negatives.value(), t._1(), t._2()));
    }
  }

  /** The seeds a store partition holds, in the split sampled. */
  private static long countSeeds(SampleSpec spec, int p) {
    StorePartition part = Partitions.get(spec, p);
    int from = (int) part.firstVertex();
    int to = (int) (part.firstVertex() + part.numVertices());
    long n = 0;
    for (int v = from; v < to; v++) {
      if (SeedOrder.inSplit(spec.splitCode, part.split(v))) {
        n++;
      }
    }
    return n;
  }

  /** The answers of a task's batches that its own store partition holds, sampled in place. */
  private static Iterator<Tuple2<Long, Answer>> localAnswers(
      SampleSpec spec,
      Iterator<Tuple2<Long, PartialBatch>> batches,
      long[] firsts,
      int hop,
      HomePartitioner home) {
    List<Tuple2<Long, Answer>> out = new ArrayList<>();
    while (batches.hasNext()) {
      Tuple2<Long, PartialBatch> t = batches.next();
      int own = home.getPartition(t._1());
      Iterator<Tuple2<Integer, Request>> requests = frontier(t._1(), t._2(), firsts);
      while (requests.hasNext()) {
        Tuple2<Integer, Request> r = requests.next();
        if (r._1() == own) {
          out.add(new Tuple2<>(t._1(), sample(spec, own, hop, r._2())));
        }
      }
    }
    return out.iterator();
  }

  /** A batch's requests to store partitions other than its own. */
  private static Iterator<Tuple2<Integer, Request>> remoteRequests(
      long id, PartialBatch pb, long[] firsts, HomePartitioner home) {
    int own = home.getPartition(id);
    List<Tuple2<Integer, Request>> out = new ArrayList<>();
    Iterator<Tuple2<Integer, Request>> requests = frontier(id, pb, firsts);
    while (requests.hasNext()) {
      Tuple2<Integer, Request> r = requests.next();
      if (r._1() != own) {
        out.add(r);
      }
    }
    return out.iterator();
  }

  private static List<Answer> both(Iterable<Answer> a, Iterable<Answer> b) {
    List<Answer> all = new ArrayList<>();
    a.forEach(all::add);
    b.forEach(all::add);
    return all;
  }

  private static PartialBatch seedBatch(SampleSpec spec, long id, Iterable<long[]> seeds) {
    List<long[]> list = new ArrayList<>();
    seeds.forEach(list::add);
    list.sort((a, b) -> Long.compare(a[0], b[0]));
    int[] vs = new int[list.size()];
    int[] labels = new int[list.size()];
    for (int i = 0; i < vs.length; i++) {
      if (list.get(i)[0] != i) {
        throw new IllegalStateException("batch " + id + " lacks seed position " + i);
      }
      vs[i] = (int) list.get(i)[1];
      labels[i] = (int) (list.get(i)[1] >> 32);
    }
    return PartialBatch.seeds((int) (id >>> 32), (int) id, spec.fanouts.length, vs, labels);
  }

  /** A batch's nodes grouped by owning partition. */
  static final class Request implements Serializable {
    private static final long serialVersionUID = 1L;
    final long batchId;
    final int[] local;
    final int[] nodes;

    Request(long batchId, int[] local, int[] nodes) {
      this.batchId = batchId;
      this.local = local;
      this.nodes = nodes;
    }
  }

  /** A partition's answer for some of a batch's nodes: per node a slice of {@code values}. */
  static final class Answer implements Serializable {
    private static final long serialVersionUID = 1L;
    final int[] local;
    final int[] counts;
    final int[] ints;
    final byte[] bytes;
    final int[] labels; // hop 1 of a link batch: the labels of the seeds in local

    Answer(int[] local, int[] counts, int[] ints, byte[] bytes) {
      this(local, counts, ints, bytes, null);
    }

    Answer(int[] local, int[] counts, int[] ints, byte[] bytes, int[] labels) {
      this.local = local;
      this.counts = counts;
      this.ints = ints;
      this.bytes = bytes;
      this.labels = labels;
    }
  }

  private static Iterator<Tuple2<Integer, Request>> frontier(
      long id, PartialBatch pb, long[] firsts) {
    int n = pb.nodes.length;
    int parts = firsts.length - 1;
    int[] owner = new int[n];
    int[] count = new int[parts];
    for (int i = 0; i < n; i++) {
      int p = Arrays.binarySearch(firsts, pb.nodes[i]);
      p = p >= 0 ? p : -p - 2;
      while (p + 1 < parts && firsts[p + 1] <= pb.nodes[i]) {
        p++; // skip empty partitions sharing a start
      }
      owner[i] = p;
      count[p]++;
    }
    List<Tuple2<Integer, Request>> out = new ArrayList<>();
    int[][] local = new int[parts][];
    int[][] nodes = new int[parts][];
    int[] fill = new int[parts];
    for (int p = 0; p < parts; p++) {
      if (count[p] > 0) {
        local[p] = new int[count[p]];
        nodes[p] = new int[count[p]];
      }
    }
    for (int i = 0; i < n; i++) {
      int p = owner[i];
      local[p][fill[p]] = i;
      nodes[p][fill[p]++] = pb.nodes[i];
    }
    for (int p = 0; p < parts; p++) {
      if (count[p] > 0) {
        out.add(new Tuple2<>(p, new Request(id, local[p], nodes[p])));
      }
    }
    return out.iterator();
  }

  private static Answer sample(SampleSpec spec, int p, int hop, Request r) {
    Answer a = sampleRows(spec, p, hop, r);
    if (spec.link == null || hop != 1) {
      return a;
    }
    // A link batch's seeds are pair endpoints, not seeds with their labels: the owners add them.
    StorePartition part = Partitions.get(spec, p);
    int[] labels = new int[r.nodes.length];
    for (int i = 0; i < labels.length; i++) {
      labels[i] = part.label(r.nodes[i]);
    }
    return new Answer(a.local, a.counts, a.ints, null, labels);
  }

  private static Answer sampleRows(SampleSpec spec, int p, int hop, Request r) {
    CsrGraph g = Partitions.get(spec, p).csr();
    int epoch = (int) (r.batchId >>> 32);
    long batchKey = SampleHash.batchKey(SampleHash.epochKey(spec.seed, epoch), (int) r.batchId);
    int fanout = spec.fanouts[hop - 1];
    if (spec.weighted) {
      return sampleWeighted(Partitions.get(spec, p), g, batchKey, hop, fanout, r);
    }
    NodeSampler ns = new NodeSampler();
    int[] counts = new int[r.nodes.length];
    long total = 0;
    for (int i = 0; i < r.nodes.length; i++) {
      int v = r.nodes[i];
      counts[i] = NodeSampler.sampleSize(g.rowEnd(v) - g.rowStart(v), fanout);
      total += counts[i];
    }
    int[] ids = new int[(int) total];
    int[] positions = new int[64];
    int o = 0;
    for (int i = 0; i < r.nodes.length; i++) {
      if (positions.length < counts[i]) {
        positions = new int[Math.max(counts[i], 2 * positions.length)];
      }
      o += ns.sampleNeighbors(g, batchKey, hop, r.nodes[i], fanout, positions, ids, o);
    }
    return new Answer(r.local, counts, ids, null);
  }

  /** {@link #sample} proportional to the edge weights: the counts come out of the sampling. */
  private static Answer sampleWeighted(
      StorePartition part, CsrGraph g, long batchKey, int hop, int fanout, Request r) {
    EdgeWeights w = part.weights();
    WeightedNodeSampler ws = new WeightedNodeSampler();
    int[] counts = new int[r.nodes.length];
    long room = 0;
    for (int v : r.nodes) {
      room += WeightedNodeSampler.capacity(g.rowEnd(v) - g.rowStart(v), fanout);
    }
    if (room > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("hop " + hop + " samples more than 2^31 edges");
    }
    int[] ids = new int[(int) room];
    int o = 0;
    for (int i = 0; i < r.nodes.length; i++) {
      counts[i] = ws.sampleNeighbors(g, w, batchKey, hop, r.nodes[i], fanout, ids, o);
      o += counts[i];
    }
    return new Answer(r.local, counts, Arrays.copyOf(ids, o), null);
  }

  private static PartialBatch extend(SampleSpec spec, PartialBatch pb, Iterable<Answer> answers) {
    int n = pb.nodes.length;
    int[] counts = new int[n];
    int[] seen = new int[n];
    for (Answer a : answers) {
      for (int k = 0; k < a.local.length; k++) {
        counts[a.local[k]] = a.counts[k];
        seen[a.local[k]]++;
      }
    }
    int[] ptr = new int[n + 1];
    for (int i = 0; i < n; i++) {
      if (seen[i] != 1) {
        throw new IllegalStateException(
            "batch " + pb.batch + ": node " + pb.nodes[i] + " answered " + seen[i] + " times");
      }
      ptr[i + 1] = ptr[i] + counts[i];
    }
    int[] ids = new int[ptr[n]];
    int[] labels = pb.pairs != null && pb.hops == 0 ? new int[n] : pb.labels;
    for (Answer a : answers) {
      int o = 0;
      for (int k = 0; k < a.local.length; k++) {
        System.arraycopy(a.ints, o, ids, ptr[a.local[k]], a.counts[k]);
        o += a.counts[k];
        if (a.labels != null) {
          labels[a.local[k]] = a.labels[k];
        }
      }
    }
    if (pb.pairs != null) {
      ids = positiveEdges(pb).dropFrom(ptr, ids, i -> pb.nodes[i]);
    }
    BatchBuilder b = new BatchBuilder();
    b.resume(pb);
    b.addHop(ptr, ids);
    return b.snapshot(pb.epoch, pb.batch, labels, pb.pairs);
  }

  /** A link batch's positive edges (global ids), which none of its blocks may contain. */
  private static PairSet positiveEdges(PartialBatch pb) {
    PairSet s = new PairSet();
    LinkPairs p = pb.pairs;
    for (int i = 0; i < p.size(); i++) {
      if (p.label()[i] == 1) {
        s.add(pb.nodes[p.src()[i]], pb.nodes[p.dst()[i]]);
      }
    }
    return s;
  }

  private static long partKey(SampleSpec spec, long batchId) {
    int epoch = (int) (batchId >>> 32);
    int batch = (int) batchId;
    long part = (long) epoch * spec.plan.partsPerEpoch() + spec.plan.partOf(batch);
    return part << 32 | batch;
  }

  /** Encoded feature rows of a request, in answers of about 1 MB keyed for the writer. */
  private static Iterator<Tuple2<Long, Object>> features(SampleSpec spec, int p, Request r) {
    StorePartition part = Partitions.get(spec, p);
    int dim = part.dim();
    int rowBytes = spec.featureRowBytes;
    int rowsPerAnswer = Math.max(1, (1 << 20) / Math.max(rowBytes, 1));
    long key = partKey(spec, r.batchId);
    List<Tuple2<Long, Object>> out = new ArrayList<>();
    boolean stored = spec.features.stored();
    float[] values = stored ? null : new float[Math.min(rowsPerAnswer, r.nodes.length) * dim];
    for (int from = 0; from < r.nodes.length; from += rowsPerAnswer) {
      int n = Math.min(rowsPerAnswer, r.nodes.length - from);
      byte[] bytes = new byte[n * rowBytes];
      if (stored) {
        // the store's encoded rows, undecoded
        for (int i = 0; i < n; i++) {
          part.encodedFeatures(r.nodes[from + i], rowBytes, bytes, i * rowBytes);
        }
      } else {
        for (int i = 0; i < n; i++) {
          part.features(r.nodes[from + i], values, i * dim);
        }
        BatchCodec.encodeFeaturesInto(values, n * dim, spec.features, bytes, 0);
      }
      out.add(
          new Tuple2<>(
              key, new Answer(Arrays.copyOfRange(r.local, from, from + n), null, null, bytes)));
    }
    return out.iterator();
  }

  private static Iterator<PartResult> writePart(
      SampleSpec spec, String staging, int globalPart, Iterator<Tuple2<Long, Object>> records) {
    if (!records.hasNext()) {
      return java.util.Collections.emptyIterator();
    }
    int epoch = globalPart / spec.plan.partsPerEpoch();
    int part = globalPart % spec.plan.partsPerEpoch();
    Iterator<EncodedBatch> encoded =
        new Iterator<>() {
          private Tuple2<Long, Object> peeked = records.next();
          private int expected = spec.plan.firstBatch(part);

          @Override
          public boolean hasNext() {
            return peeked != null;
          }

          @Override
          public EncodedBatch next() {
            long key = peeked._1();
            PartialBatch pb = null;
            List<Answer> rows = new ArrayList<>();
            while (peeked != null && peeked._1() == key) {
              if (peeked._2() instanceof PartialBatch b) {
                pb = b;
              } else {
                rows.add((Answer) peeked._2());
              }
              peeked = records.hasNext() ? records.next() : null;
            }
            if (pb == null || pb.epoch != epoch || pb.batch != expected++) {
              throw new IllegalStateException(
                  "part " + epoch + ":" + part + " lacks batch " + (expected - 1));
            }
            EncodedBatch e = BatchCodec.encode(pb.toMiniBatch(), null, FeatureEncoding.NONE);
            return new EncodedBatch(
                e.epoch(),
                e.batch(),
                e.numSeeds(),
                e.layerSizes(),
                e.nodes(),
                e.indptr(),
                e.indices(),
                e.labels(),
                spec.features == FeatureEncoding.NONE ? null : assemble(spec, pb, rows),
                e.pairs());
          }
        };
    return List.of(
            PartFiles.write(
                spec,
                staging,
                epoch,
                part,
                tmp ->
                    ShardPartWriter.writeEncoded(
                        tmp, encoded, spec.codec(), spec.metadata(epoch, part))))
        .iterator();
  }

  private static byte[] assemble(SampleSpec spec, PartialBatch pb, List<Answer> rows) {
    int rowBytes = spec.featureRowBytes;
    byte[] out = new byte[Math.multiplyExact(pb.nodes.length, rowBytes)];
    int filled = 0;
    for (Answer a : rows) {
      for (int k = 0; k < a.local.length; k++) {
        System.arraycopy(a.bytes, k * rowBytes, out, a.local[k] * rowBytes, rowBytes);
      }
      filled += a.local.length;
    }
    if (filled != pb.nodes.length) {
      throw new IllegalStateException(
          "batch " + pb.batch + ": " + filled + " feature rows for " + pb.nodes.length + " nodes");
    }
    return out;
  }

  private static <T> T one(Iterable<T> it) {
    Iterator<T> i = it.iterator();
    if (!i.hasNext()) {
      throw new IllegalStateException("a batch's state is missing");
    }
    T t = i.next();
    if (i.hasNext()) {
      throw new IllegalStateException("a batch's state appears twice");
    }
    return t;
  }

  /** Partitioner by part file: the key is {@code part << 32 | batch}. */
  static final class PartPartitioner extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int n;

    PartPartitioner(int n) {
      this.n = Math.max(n, 1);
    }

    @Override
    public int numPartitions() {
      return n;
    }

    @Override
    public int getPartition(Object key) {
      return (int) ((Long) key >>> 32);
    }
  }

  /**
   * {@code --batch-by-partition}: a batch goes to the task of the store partition its seeds come
   * from (the key is {@code epoch << 32 | batch}), which answers the batch's nodes it owns in
   * place.
   */
  static final class HomePartitioner extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int n;
    private final Broadcast<int[][]> home;

    HomePartitioner(int n, Broadcast<int[][]> home) {
      this.n = Math.max(n, 1);
      this.home = home;
    }

    @Override
    public int numPartitions() {
      return n;
    }

    @Override
    public int getPartition(Object key) {
      long id = (Long) key;
      return home.value()[(int) (id >>> 32)][(int) id];
    }
  }

  /** Per-JVM cache of opened store partitions. */
  static final class Partitions {
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
}
