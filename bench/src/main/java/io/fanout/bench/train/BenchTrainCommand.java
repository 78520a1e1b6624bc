package io.fanout.bench.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.nn.ModelConfig;
import io.fanout.spark.train.TrainOptionsDefs;
import io.fanout.store.FileTrees;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backends;
import io.fanout.tensor.CpuBackend;
import io.fanout.train.HotReuse;
import io.fanout.train.TrainFeatureCache;
import io.fanout.train.TrainSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bin/fanout bench-train}: training throughput on a generated products-size graph, with the
 * dense layers' GFLOP/s next to the same BLAS's sgemm measured in the same run, and what verifying
 * the store and the shards costs an epoch.
 */
public final class BenchTrainCommand implements Command {
  static final OptionDef<Integer> VERTICES =
      OptionDef.integer("vertices", 2_500_000, "vertices of the generated graph");
  static final OptionDef<Long> EDGES =
      OptionDef.longValue("edges", 60_000_000L, "edges of the generated graph (about)");
  static final OptionDef<Integer> FEATURES = OptionDef.integer("features", 100, "feature dim");
  static final OptionDef<Integer> HIDDEN = OptionDef.integer("hidden", 256, "hidden width");
  static final OptionDef<String> FANOUTS =
      OptionDef.string("fanouts", "15,10,5", "fanouts (one per layer)");
  static final OptionDef<Integer> BATCH_SIZE =
      OptionDef.integer("batch-size", 1024, "seeds per batch");
  static final OptionDef<Integer> BATCHES = OptionDef.integer("batches", 20, "timed batches");
  static final OptionDef<Integer> WARMUP = OptionDef.integer("warmup", 3, "untimed batches first");
  static final OptionDef<Integer> LOADER_THREADS =
      OptionDef.integer("loader-threads", 2, "background sampling/gather threads");
  static final OptionDef<Integer> PREFETCH =
      OptionDef.integer("prefetch", 2, "batches each loader thread keeps ready");
  static final OptionDef<Integer> VERIFY_ROUNDS =
      OptionDef.integer(
          "verify-rounds",
          2,
          "then write the graph as a store and the batches as shards, and train this many pairs"
              + " of epochs from them, one reading the shards unchecked and one verifying them;"
              + " 0 skips");
  static final OptionDef<Integer> BATCHES_PER_SHARD =
      OptionDef.integer("batches-per-shard", 8, "batches per shard part for verify-rounds");
  static final OptionDef<String> EXPORT_BATCHES =
      OptionDef.string(
          "export-batches",
          "",
          "write the warmup + timed batches, their features, the model's configuration and initial"
              + " parameters as .npy files into this new directory (for bench/torch_reference.py)"
              + " instead of the throughput run");
  static final OptionDef<String> PEER =
      OptionDef.choice(
          "peer",
          "none",
          "torch: train the same model on the same exported batches with plain PyTorch"
              + " (bench/torch_reference.py), alternating with Fanout, and print the ratio",
          "none",
          "torch");
  static final OptionDef<Integer> PEER_ROUNDS =
      OptionDef.integer("peer-rounds", 3, "alternating rounds of Fanout and the peer");
  static final OptionDef<Double> DROPOUT =
      OptionDef.doubleValue(
          "dropout", 0.5, "dropout of the exported model (--export-batches, --peer)");
  static final OptionDef<Double> FEATURE_CACHE_FRACTION =
      OptionDef.doubleValue(
          "feature-cache-fraction",
          0.0,
          "with --feature-access zero-copy: read the rows from a feature file through a belady"
              + " cache of this fraction of their bytes, whose pages the backend reads in place"
              + " (0: every row in memory)");
  static final OptionDef<Integer> FEATURE_CACHE_IO_THREADS =
      OptionDef.integer(
          "feature-cache-io-threads",
          TrainFeatureCache.IO_THREADS,
          "I/O threads of the --feature-cache-fraction cache");
  static final OptionDef<Integer> REUSE_ROUNDS =
      OptionDef.integer(
          "reuse-rounds",
          2,
          "with --reuse-hot: timed epochs of each, with and without reuse, alternating");
  static final OptionDef<String> PEER_SCRIPT =
      OptionDef.string(
          "peer-script",
          "",
          "the peer's script; empty = bench/torch_reference.py of this checkout");

  @Override
  public String name() {
    return "bench-train";
  }

  @Override
  public String summary() {
    return "Benchmark training steps on a generated graph (dense GFLOP/s vs sgemm, data wait)";
  }

  @Override
  public List<OptionDef<?>> options() {
    return List.of(
        VERTICES,
        EDGES,
        FEATURES,
        HIDDEN,
        FANOUTS,
        BATCH_SIZE,
        BATCHES,
        WARMUP,
        LOADER_THREADS,
        PREFETCH,
        VERIFY_ROUNDS,
        BATCHES_PER_SHARD,
        EXPORT_BATCHES,
        PEER,
        PEER_ROUNDS,
        DROPOUT,
        PEER_SCRIPT,
        TrainOptionsDefs.REUSE_HOT,
        TrainOptionsDefs.STALENESS,
        TrainOptionsDefs.HOT_BY,
        TrainOptionsDefs.REUSE_REFRESH,
        TrainOptionsDefs.REUSE_BACKWARD,
        TrainOptionsDefs.REUSE_ROWS,
        REUSE_ROUNDS,
        TrainOptionsDefs.BACKEND,
        TrainOptionsDefs.FEATURE_ACCESS,
        FEATURE_CACHE_FRACTION,
        FEATURE_CACHE_IO_THREADS);
  }

  @Override
  public int run(CommandContext ctx) {
    FanoutConf c = ctx.conf();
    int[] fanouts = TrainOptionsDefs.fanouts(c.get(FANOUTS));
    TrainBenchmark.Settings settings =
        new TrainBenchmark.Settings(
            c.get(VERTICES),
            c.get(EDGES),
            c.get(FEATURES),
            c.get(HIDDEN),
            fanouts,
            c.get(BATCH_SIZE),
            c.get(BATCHES),
            c.get(WARMUP),
            c.get(LOADER_THREADS),
            c.get(PREFETCH),
            c.get(BATCHES_PER_SHARD),
            c.get(VERIFY_ROUNDS),
            c.get(TrainOptionsDefs.FEATURE_ACCESS),
            c.get(FEATURE_CACHE_FRACTION),
            c.get(FEATURE_CACHE_IO_THREADS));
    String export = c.get(EXPORT_BATCHES);
    boolean peer = c.get(PEER).equals("torch");
    HotReuse reuse = TrainOptionsDefs.reuse(c);
    if (settings.featureAccess().equals(TrainSpec.ZERO_COPY) && (peer || !export.isEmpty())) {
      throw new InvalidInputException(
          "--feature-access zero-copy is not what --peer and --export-batches compare; drop them,"
              + " or use --feature-access gather");
    }
    if (reuse.enabled()) {
      ctx.out()
          .println(
              BenchJson.line(
                  HotReuseBenchmark.run(
                      settings,
                      Backends.select(c.get(TrainOptionsDefs.BACKEND), -1),
                      reuse,
                      c.get(REUSE_ROUNDS))));
      return 0;
    }
    if (export.isEmpty() && !peer) {
      ctx.out()
          .println(
              BenchJson.line(
                  TrainBenchmark.run(
                      settings, Backends.select(c.get(TrainOptionsDefs.BACKEND), -1))));
      return 0;
    }
    float dropout = c.get(DROPOUT).floatValue();
    if (!(dropout >= 0f && dropout < 1f)) {
      throw new InvalidInputException("--dropout must be in [0, 1), got " + c.get(DROPOUT));
    }
    TorchPeer torch = null;
    if (peer) {
      String script = c.get(PEER_SCRIPT);
      torch =
          new TorchPeer(
              script.isEmpty()
                  ? TorchPeer.defaultScript(System.getProperty("fanout.home"))
                  : Path.of(script));
    }
    Path dir = export.isEmpty() ? tempDir() : Path.of(export);
    try {
      ModelConfig cfg = PeerBenchmark.export(settings, dropout, dir);
      Map<String, Object> r = new LinkedHashMap<>();
      if (torch == null) {
        r.put("exported", dir.toAbsolutePath().toString());
        r.put("batches", settings.warmup() + settings.batches());
      } else {
        r.putAll(
            PeerBenchmark.compare(
                dir,
                cfg,
                settings.warmup(),
                settings.batches(),
                c.get(PEER_ROUNDS),
                CpuBackend.threads(),
                torch));
      }
      r.put("dropout", dropout);
      ctx.out().println(BenchJson.line(r));
      return 0;
    } finally {
      if (export.isEmpty()) {
        try {
          FileTrees.deleteRecursively(dir);
        } catch (IOException e) {
          ctx.err().println("fanout bench-train: could not remove " + dir + ": " + e.getMessage());
        }
      }
    }
  }

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("fanout-peer-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    }
  }
}
