package io.fanout.jobs.sample;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.graph.GraphStore;
import io.fanout.sample.Fanouts;
import io.fanout.sample.SeedOrder;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardCommit;
import io.fanout.shard.ShardManifest;
import io.fanout.shard.ShardPlan;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.train.Defaults;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * {@code bin/fanout sample}: neighborhood sampling of a graph store into Parquet mini-batch shards
 * ({@code docs/sampling.md}). Validates everything on the driver before any task runs; writes under
 * a staging directory and publishes {@code manifest.json} last.
 */
public final class SampleCommand implements Command {
  static final OptionDef<String> GRAPH =
      OptionDef.string("graph", null, "graph store directory (written by prepare)");
  static final OptionDef<String> OUTPUT =
      OptionDef.string("output", null, "shard directory to write; visible to every executor");
  static final OptionDef<String> SPLIT =
      OptionDef.choice(
          "split",
          "train",
          "seed vertices: a split of the store, or all",
          "train",
          "val",
          "test",
          "all");
  static final OptionDef<Integer> BATCH_SIZE =
      OptionDef.integer("batch-size", 1024, "seeds per mini-batch (the last may be smaller)");
  static final OptionDef<String> FANOUTS =
      OptionDef.string(
          "fanouts",
          Fanouts.format(Defaults.FANOUTS),
          "neighbors per node and hop, hop 1 (the seeds) first; -1 = all; the default matches"
              + " the trainer's default 2-layer model");
  static final OptionDef<Integer> EPOCHS =
      OptionDef.integer("epochs", 1, "epochs; each shuffles the seeds afresh");
  static final OptionDef<Long> SEED = OptionDef.longValue("seed", 0, "random seed");
  static final OptionDef<String> FEATURES =
      OptionDef.choice(
          "features",
          "none",
          "inline the feature rows of every node of a batch; none = ids only",
          "none",
          "f32",
          "f16");
  static final OptionDef<String> MODE =
      OptionDef.choice(
          "mode",
          "replicated",
          "replicated: each task maps the whole store; partitioned: hop-by-hop joins with the"
              + " CSR partitions (same shards)",
          "replicated",
          "partitioned");
  static final OptionDef<Boolean> OVERWRITE =
      OptionDef.bool("overwrite", false, "replace shards of a different request at --output");
  static final OptionDef<Integer> BATCHES_PER_SHARD =
      OptionDef.integer("batches-per-shard", 64, "mini-batches per part file");
  static final OptionDef<Integer> THREADS =
      OptionDef.integer(
          "threads", 1, "sampler threads per task in replicated mode (output does not change)");
  static final OptionDef<String> COMPRESSION =
      OptionDef.choice(
          "compression",
          "zstd",
          "Parquet page compression of the shards",
          "uncompressed",
          "snappy",
          "zstd");
  static final OptionDef<Boolean> VERIFY_STORE =
      OptionDef.bool(
          "verify-store", true, "check the store's files against its manifest CRC32C first");

  /** Test hook (Spark conf only): "epoch:part" whose first task attempt fails after writing. */
  static final String FAIL_HOOK = "spark.fanout.test.fail-first-attempt";

  @Override
  public String name() {
    return "sample";
  }

  @Override
  public String summary() {
    return "Sample mini-batches from a graph store into Parquet shards";
  }

  @Override
  public List<OptionDef<?>> options() {
    return List.of(
        GRAPH,
        OUTPUT,
        SPLIT,
        BATCH_SIZE,
        FANOUTS,
        EPOCHS,
        SEED,
        FEATURES,
        MODE,
        OVERWRITE,
        BATCHES_PER_SHARD,
        THREADS,
        COMPRESSION,
        VERIFY_STORE);
  }

  @Override
  public int run(CommandContext ctx) throws Exception {
    FanoutConf conf = ctx.conf();
    if (!ctx.positional().isEmpty()) {
      throw new FanoutConfigException(
          "sample takes no positional arguments, got " + ctx.positional());
    }
    int[] fanouts;
    try {
      fanouts = Fanouts.parse(conf.get(FANOUTS));
    } catch (IllegalArgumentException e) {
      throw new FanoutConfigException(
          "option 'fanouts' of sample has value '" + conf.raw(FANOUTS) + "': " + e.getMessage());
    }
    int batchSize = positive(conf, BATCH_SIZE);
    int epochs = positive(conf, EPOCHS);
    int batchesPerShard = positive(conf, BATCHES_PER_SHARD);
    int threads = positive(conf, THREADS);
    String split = conf.get(SPLIT);
    FeatureEncoding features = FeatureEncoding.of(conf.get(FEATURES));
    String mode = conf.get(MODE);
    Path graph = Paths.get(conf.get(GRAPH));
    Path output = Paths.get(conf.get(OUTPUT));

    String storeFingerprint = StoreCache.fingerprint(graph);
    StoreManifest sm;
    try (GraphStore store = GraphStore.open(graph)) {
      sm = store.manifest();
      if (conf.get(VERIFY_STORE)) {
        store.verifyChecksums();
      }
    }
    if (!StoreCache.fingerprint(graph).equals(storeFingerprint)) {
      throw new InvalidInputException(graph + ": the graph store changed while being opened");
    }
    int splitCode = split.equals("all") ? SeedOrder.ALL : StoreLayout.splitCode(split);
    long seeds = splitCode == SeedOrder.ALL ? sm.vertices : sm.splitCounts.getOrDefault(split, 0L);
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
    ShardPlan plan = new ShardPlan(seeds, batchSize, epochs, batchesPerShard);
    String failHook = ctx.spark().conf().get(FAIL_HOOK, null);
    SampleSpec spec =
        new SampleSpec(
            graph.toAbsolutePath().toString(),
            storeFingerprint,
            splitCode,
            split,
            batchSize,
            fanouts,
            epochs,
            conf.get(SEED),
            features,
            features == FeatureEncoding.NONE ? 0 : sm.featureDim,
            conf.get(COMPRESSION),
            threads,
            plan,
            failHook);

    Map<String, String> request = new LinkedHashMap<>();
    request.put("store_fingerprint", storeFingerprint);
    request.put("split", split);
    request.put("batch-size", Integer.toString(batchSize));
    request.put("fanouts", Fanouts.format(fanouts));
    request.put("epochs", Integer.toString(epochs));
    request.put("seed", Long.toString(spec.seed));
    request.put("features", features.id());
    request.put("batches-per-shard", Integer.toString(batchesPerShard));
    request.put("compression", spec.compression);
    String requestFingerprint = sha256(request.toString());

    Map<String, Object> result = new LinkedHashMap<>();
    result.put("output", output.toString());
    ShardCommit.Plan commit = ShardCommit.plan(output, requestFingerprint, conf.get(OVERWRITE));
    if (commit == ShardCommit.Plan.SKIP) {
      ctx.err().println("sample: " + output + " already holds these shards; nothing to do");
      result.put("skipped", true);
      result.put("manifest", output.resolve(ShardManifest.FILE).toString());
      print(ctx, result);
      return 0;
    }
    boolean created = !java.nio.file.Files.exists(output);
    java.nio.file.Files.createDirectories(output);
    Path staging = ShardCommit.newStaging(output);
    long start = System.nanoTime();
    ShardManifest m;
    try {
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(ctx.spark().sparkContext());
      ctx.err()
          .println(
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
      ShardCommit.publish(output, staging, m);
    } catch (RuntimeException | Error e) {
      ShardCommit.abort(staging);
      if (created) {
        try (var left = java.nio.file.Files.list(output)) {
          if (left.findAny().isEmpty()) {
            java.nio.file.Files.delete(output);
          }
        }
      }
      throw unwrap(e);
    }
    double secs = (System.nanoTime() - start) / 1e9;
    result.put("skipped", false);
    result.put("mode", mode);
    result.put("epochs", epochs);
    result.put("batches_per_epoch", plan.batchesPerEpoch());
    result.put("parts", m.files.size());
    result.put("sampled_edges", m.totals.edges);
    result.put("bytes", m.totals.bytes);
    result.put("seconds", secs);
    result.put("sampled_edges_per_s", m.totals.edges / secs);
    result.put("manifest", output.resolve(ShardManifest.FILE).toString());
    print(ctx, result);
    return 0;
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
    m.compression = spec.compression;
    m.batchesPerShard = spec.plan.batchesPerShard();
    m.batchesPerEpoch = spec.plan.batchesPerEpoch();
    m.partsPerEpoch = spec.plan.partsPerEpoch();
    m.mode = mode;
    m.options = new LinkedHashMap<>(conf.resolved());
    parts = new java.util.ArrayList<>(parts);
    parts.sort(Comparator.comparingInt((PartResult p) -> p.epoch).thenComparingInt(p -> p.part));
    if (parts.size() != spec.plan.totalParts()) {
      throw new IllegalStateException(
          parts.size() + " parts written, expected " + spec.plan.totalParts());
    }
    for (int i = 0; i < parts.size(); i++) {
      PartResult p = parts.get(i);
      if (p.epoch * (long) spec.plan.partsPerEpoch() + p.part != i
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
    if (m.totals.seeds != spec.plan.seeds() * spec.epochs) {
      throw new IllegalStateException(
          m.totals.seeds + " seeds written, expected " + spec.plan.seeds() * spec.epochs);
    }
    return m;
  }

  private static int positive(FanoutConf conf, OptionDef<Integer> def) {
    int v = conf.get(def);
    if (v < 1) {
      throw new FanoutConfigException(
          "option '" + def.name() + "' of sample has value '" + v + "': expected at least 1");
    }
    return v;
  }

  /** Spark wraps task failures; surface our own clear errors as they were thrown. */
  private static RuntimeException unwrap(Throwable e) {
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

  static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** One JSON line on stdout, like every other command. */
  private static void print(CommandContext ctx, Map<String, Object> result) throws Exception {
    ctx.out().println(new ObjectMapper().writeValueAsString(result));
  }
}
