package io.fanout.spark.sample;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.Task;
import io.fanout.conf.options.SampleOptions;
import io.fanout.graph.GraphStore;
import io.fanout.graph.HeldOutEdges;
import io.fanout.sample.Fanouts;
import io.fanout.sample.SeedOrder;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.PartWriteObserver;
import io.fanout.shard.ShardManifest;
import io.fanout.shard.ShardOutput;
import io.fanout.shard.ShardPlan;
import io.fanout.spark.internal.Hooks;
import io.fanout.spark.internal.TaskTotals;
import io.fanout.store.Checksums;
import io.fanout.store.DisjointPaths;
import io.fanout.store.InvalidInputException;
import io.fanout.store.OutputCommit;
import io.fanout.store.OutputPaths;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The {@code sample} job: neighborhood sampling of a graph store into Parquet mini-batch shards
 * ({@code docs/sampling.md}). Validates everything on the driver before any task runs; writes under
 * a staging directory and publishes {@code manifest.json} last.
 */
public final class SampleJob {
  private SampleJob() {}

  /**
   * Samples the store named by {@code conf} into shards, or skips when the output already holds the
   * same request.
   *
   * @param err where progress lines go
   */
  public static SampleOutcome run(SparkSession spark, FanoutConf conf, PrintStream err)
      throws IOException {
    String openerClass = Hooks.className(spark, Hooks.TYPED_STORE_OPENER, TypedStoreOpener.class);
    openerClass = openerClass == null ? TypedStoreOpener.DEFAULT : openerClass;
    TypedStoreOpener opener = TypedStoreCache.opener(openerClass);
    String graphOption = conf.get(SampleOptions.GRAPH);
    if (graphOption != null && opener.isTyped(Paths.get(graphOption))) {
      return TypedSampleJob.run(spark, conf, err, opener, openerClass);
    }
    conf.refuseIgnored(
        SampleOptions.SEED_TYPE, "the store has one vertex type; --seed-type is for typed stores");
    int[] fanouts;
    try {
      fanouts = Fanouts.parse(conf.get(SampleOptions.FANOUTS));
    } catch (IllegalArgumentException e) {
      throw new FanoutConfigException(
          "option 'fanouts' of sample has value '"
              + conf.raw(SampleOptions.FANOUTS)
              + "': "
              + e.getMessage());
    }
    if (conf.get(SampleOptions.TASK) != Task.LINK) {
      for (OptionDef<?> d : List.of(SampleOptions.NEGATIVES, SampleOptions.NUM_NEGATIVES)) {
        conf.refuseIgnored(d, "--task node samples no negatives; add --task link");
      }
    }
    int batchSize = positive(conf, SampleOptions.BATCH_SIZE);
    int epochs = positive(conf, SampleOptions.EPOCHS);
    int batchesPerShard = positive(conf, SampleOptions.BATCHES_PER_SHARD);
    int threads = positive(conf, SampleOptions.THREADS);
    String split = conf.get(SampleOptions.SPLIT).id();
    FeatureEncoding features = FeatureEncoding.of(conf.get(SampleOptions.FEATURES).id());
    String mode = conf.get(SampleOptions.MODE).id();
    Path graph = Paths.get(conf.get(SampleOptions.GRAPH));
    Path output = OutputPaths.check(Paths.get(conf.get(SampleOptions.OUTPUT)), "--output");
    new DisjointPaths().input("--graph", graph).output("--output", output).check();

    String storeFingerprint = StoreCache.fingerprint(graph);
    StoreManifest sm;
    int storeRowBytes; // bytes of one feature row as the store encodes it
    boolean verify = conf.get(SharedOptions.VERIFY) && conf.get(SampleOptions.VERIFY_STORE);
    try (GraphStore store = GraphStore.open(graph, verify)) {
      sm = store.manifest();
      storeRowBytes = store.featureParams() == null ? 0 : store.featureParams().rowBytes();
    }
    if (!StoreCache.fingerprint(graph).equals(storeFingerprint)) {
      throw new InvalidInputException(graph + ": the graph store changed while being opened");
    }
    int splitCode = split.equals("all") ? SeedOrder.ALL : StoreLayout.splitCode(split);
    if (conf.get(SampleOptions.BATCH_BY_PARTITION) && conf.get(SampleOptions.TASK) == Task.LINK) {
      throw new FanoutConfigException(
          "sample --batch-by-partition groups node seeds by store partition; --task link samples"
              + " edges and does not support it (leave --batch-by-partition out)");
    }
    LinkSpec link = linkSpec(conf, graph, sm, split);
    long seeds =
        link != null
            ? sm.edgeSplit.trainPairs
            : splitCode == SeedOrder.ALL ? sm.vertices : sm.splitCounts.getOrDefault(split, 0L);
    if (link != null && seeds == 0) {
      throw new InvalidInputException(
          graph + ": the store has no training edges (edge_split train_pairs 0)");
    }
    if (seeds == 0) {
      throw new InvalidInputException(
          graph
              + ": split '"
              + split
              + "' has no vertices (split_counts "
              + sm.splitCounts
              + " in "
              + StoreLayout.MANIFEST
              + "); expected at least one seed");
    }
    if (features != FeatureEncoding.NONE && sm.featureDim == 0) {
      throw new InvalidInputException(
          graph
              + ": --features "
              + features.id()
              + " but the store has no features (feature_dim 0)");
    }
    if (features.stored() && !sm.featureEncoding.equals(features.id())) {
      throw new InvalidInputException(
          graph
              + ": --features "
              + features.id()
              + " inlines the store's own "
              + features.id()
              + " rows, but this store keeps "
              + sm.featureEncoding
              + " features; quantize the store to "
              + features.id()
              + " first (bin/fanout quantize), or use --features "
              + (sm.featureEncoding.equals("f32") ? "f32|f16" : sm.featureEncoding));
    }
    if (features != FeatureEncoding.NONE
        && !features.stored()
        && !sm.featureEncoding.equals("f32")) {
      throw new InvalidInputException(
          graph
              + ": --features "
              + features.id()
              + " inlines rows of f32 stores, but this store keeps "
              + sm.featureEncoding
              + " features; use --features "
              + sm.featureEncoding
              + " (the store's encoded rows, decoded by the trainer), sample without --features,"
              + " or sample from the f32 store");
    }
    boolean weighted = conf.get(SampleOptions.WEIGHTED);
    if (weighted && !sm.weighted) {
      throw GraphStore.notWeighted(graph);
    }
    ShardPlan plan = new ShardPlan(seeds, batchSize, epochs, batchesPerShard);
    String partObserver =
        Hooks.className(spark, Hooks.PART_WRITE_OBSERVER, PartWriteObserver.class);
    SampleSpec spec =
        new SampleSpec(
            graph.toAbsolutePath().toString(),
            storeFingerprint,
            splitCode,
            split,
            batchSize,
            fanouts,
            epochs,
            conf.get(SampleOptions.SEED),
            weighted,
            features,
            features == FeatureEncoding.NONE ? 0 : sm.featureDim,
            conf.get(SampleOptions.COMPRESSION).id(),
            threads,
            plan,
            partObserver);
    spec.link = link;
    if (features.stored()) {
      StoreManifest.FileEntry params = sm.file(StoreLayout.FEATURE_PARAMS);
      if (params == null) {
        throw new InvalidInputException(
            graph.resolve(StoreLayout.MANIFEST)
                + ": feature_encoding "
                + sm.featureEncoding
                + " but "
                + StoreLayout.FEATURE_PARAMS
                + " is not listed in files; rerun prepare or quantize");
      }
      spec.featureParamsCrc32c = params.crc32c;
      spec.featureRowBytes = storeRowBytes;
    } else {
      spec.featureRowBytes = spec.featureDim * features.bytesPerValue();
    }
    spec.batchByPartition = conf.get(SampleOptions.BATCH_BY_PARTITION);
    spec.firsts = new long[sm.partitions + 1];
    for (int p = 0; p < sm.partitions; p++) {
      spec.firsts[p + 1] = spec.firsts[p] + sm.partitionTable.get(p).numVertices;
    }

    Map<String, String> request = new LinkedHashMap<>();
    request.put("store_fingerprint", storeFingerprint);
    request.put("split", split);
    request.put("batch-size", Integer.toString(batchSize));
    request.put("fanouts", Fanouts.format(fanouts));
    request.put("epochs", Integer.toString(epochs));
    request.put("seed", Long.toString(spec.seed));
    if (weighted) { // absent when false, so uniform requests keep their fingerprint
      request.put("weighted", "true");
    }
    if (spec.batchByPartition) { // absent when false, as weighted
      request.put("batch-by-partition", "true");
    }
    if (link != null) { // absent for node tasks, so their requests keep their fingerprint
      request.put("task", "link");
      request.put("negatives", link.negatives());
      request.put("num-negatives", Integer.toString(link.perPositive()));
    }
    request.put("features", features.id());
    request.put("batches-per-shard", Integer.toString(batchesPerShard));
    request.put("compression", spec.compression);
    String requestFingerprint = Checksums.sha256(request.toString());

    boolean overwrite = conf.get(SampleOptions.OVERWRITE);
    OutputCommit.Plan commit =
        ShardOutput.COMMIT.plan(output, requestFingerprint, request.toString(), overwrite);
    if (commit == OutputCommit.Plan.SKIP) {
      err.println("sample: " + output + " already holds these shards; nothing to do");
      return new SampleOutcome(output, ShardManifest.readAny(output), true, 0);
    }
    OutputCommit.Run run = ShardOutput.COMMIT.begin(output);
    Path staging = run.dir();
    long start = System.nanoTime();
    ShardManifest m;
    long shuffled;
    try (TaskTotals shuffle = TaskTotals.start(spark.sparkContext())) {
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      err.println(
          "sample: "
              + mode
              + " mode, "
              + epochs
              + " epoch(s) x "
              + plan.batchesPerEpoch()
              + " batches in "
              + plan.partsPerEpoch()
              + " part(s) per epoch");
      List<PartResult> parts =
          mode.equals("replicated")
              ? ReplicatedSampling.run(jsc, spec, staging.toString())
              : PartitionedSampling.run(jsc, spec, sm, staging.toString());
      m = manifest(spec, sm, graph, mode, conf, requestFingerprint, parts);
      shuffled = shuffle.shuffleBytes();
      if (!ShardOutput.COMMIT.publish(run, m, overwrite)) { // an identical run published first
        err.println("sample: " + output + " already holds these shards; nothing to do");
        return new SampleOutcome(output, ShardManifest.readAny(output), true, 0);
      }
    } catch (RuntimeException | Error e) {
      ShardOutput.COMMIT.abort(run);
      throw unwrap(e);
    }
    double secs = (System.nanoTime() - start) / 1e9;
    return new SampleOutcome(output, m, false, secs, shuffled);
  }

  /** The link part of the request, checked against the store; null for {@code --task node}. */
  private static LinkSpec linkSpec(FanoutConf conf, Path graph, StoreManifest sm, String split) {
    if (conf.get(SampleOptions.TASK) != Task.LINK) {
      return null;
    }
    HeldOutEdges.requireEdgeSplit(graph, sm, "sample --task link");
    if (!split.equals("train")) {
      throw new FanoutConfigException(
          "sample --task link samples the training edges; --split "
              + split
              + " is for node tasks (val and test edges are scored by evaluate)");
    }
    int k = positive(conf, SampleOptions.NUM_NEGATIVES);
    return new LinkSpec(
        conf.get(SampleOptions.NEGATIVES).id(),
        k,
        Boolean.parseBoolean(sm.options.getOrDefault("undirected", "false")));
  }

  private static ShardManifest manifest(
      SampleSpec spec,
      StoreManifest sm,
      Path graph,
      String mode,
      FanoutConf conf,
      String requestFingerprint,
      List<PartResult> parts) {
    ShardManifest m = new ShardManifest();
    m.requestFingerprint = requestFingerprint;
    m.store = graph.toString();
    m.storeFingerprint = spec.storeFingerprint;
    m.storeVertices = sm.vertices;
    m.storeEdges = sm.edges;
    m.split = spec.split;
    m.seedsPerEpoch = spec.plan.seeds();
    m.batchSize = spec.batchSize;
    m.fanouts = spec.fanouts.clone();
    m.epochs = spec.epochs;
    m.seed = spec.seed;
    m.features = spec.features.id();
    m.featureDim = spec.featureDim;
    m.featureParamsCrc32c = spec.featureParamsCrc32c;
    m.compression = spec.compression;
    m.batchesPerShard = spec.plan.batchesPerShard();
    m.batchesPerEpoch = spec.plan.batchesPerEpoch();
    m.partsPerEpoch = spec.plan.partsPerEpoch();
    m.mode = mode;
    m.options = conf.resolvedExcept(SampleOptions.NOT_RECORDED);
    if (!spec.weighted) {
      m.options.remove(SampleOptions.WEIGHTED.name());
    }
    if (!spec.batchByPartition) {
      m.options.remove(SampleOptions.BATCH_BY_PARTITION.name());
    }
    if (spec.link == null) {
      for (OptionDef<?> d : SampleOptions.LINK_ONLY) {
        m.options.remove(d.name());
      }
    }
    for (OptionDef<?> d : SampleOptions.TYPED_ONLY) {
      m.options.remove(d.name());
    }
    addParts(m, spec.plan, parts);
    return m;
  }

  /** Lists {@code parts} in {@code m} in epoch and part order, checking none is missing. */
  static void addParts(ShardManifest m, ShardPlan plan, List<PartResult> parts) {
    addParts(m, plan, parts, plan.seeds() * plan.epochs());
  }

  /**
   * As {@link #addParts(ShardManifest, ShardPlan, List)}, the parts' seeds summing to {@code seeds}
   * (batches of held-out link pairs count their positives, not every pair the plan cuts).
   */
  static void addParts(ShardManifest m, ShardPlan plan, List<PartResult> parts, long seeds) {
    parts = new java.util.ArrayList<>(parts);
    parts.sort(Comparator.comparingInt((PartResult p) -> p.epoch).thenComparingInt(p -> p.part));
    if (parts.size() != plan.totalParts()) {
      throw new IllegalStateException(
          parts.size() + " parts written, expected " + plan.totalParts());
    }
    for (int i = 0; i < parts.size(); i++) {
      PartResult p = parts.get(i);
      if (p.epoch * (long) plan.partsPerEpoch() + p.part != i
          || p.rows != p.endBatch - p.firstBatch) {
        throw new IllegalStateException("part " + p.epoch + ":" + p.part + " is missing or short");
      }
      m.files.add(p.toManifest());
      m.totals.batches += p.rows;
      m.totals.seeds += p.seeds;
      m.totals.nodes += p.nodes;
      m.totals.edges += p.edges;
      m.totals.bytes += p.bytes;
    }
    if (m.totals.seeds != seeds) {
      throw new IllegalStateException(m.totals.seeds + " seeds written, expected " + seeds);
    }
  }

  static int positive(FanoutConf conf, OptionDef<Integer> def) {
    return conf.atLeast(def, 1);
  }

  /** Spark wraps task failures; surface our own clear errors as they were thrown. */
  static RuntimeException unwrap(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InvalidInputException || t instanceof FanoutConfigException) {
        return (RuntimeException) t;
      }
    }
    if (e instanceof RuntimeException) {
      return (RuntimeException) e;
    }
    throw (Error) e;
  }
}
