package io.fanout.bench.train;

import static io.fanout.conf.options.BenchTrainOptions.*;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.options.BenchTrainOptions;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.conf.options.TrainPeer;
import io.fanout.nn.ModelConfig;
import io.fanout.spark.train.TrainOptionsDefs;
import io.fanout.store.FileTrees;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backends;
import io.fanout.tensor.CpuBackend;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.HotReuse;
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
    return BenchTrainOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) {
    FanoutConf c = ctx.conf();
    int[] fanouts = SharedOptions.fanouts(c.get(FANOUTS));
    TrainBenchmark.Settings settings =
        new TrainBenchmark.Settings(
            Math.toIntExact(c.get(NUM_VERTICES)),
            c.get(NUM_EDGES),
            c.get(FEATURE_DIM),
            c.get(HIDDEN),
            fanouts,
            c.get(BATCH_SIZE),
            c.get(BATCHES),
            c.get(WARMUP),
            c.get(LOADER_THREADS),
            c.get(PREFETCH),
            c.get(BATCHES_PER_SHARD),
            c.get(VERIFY_ROUNDS),
            c.get(TrainCommandOptions.FEATURE_ACCESS),
            c.get(FEATURE_CACHE_FRACTION),
            c.get(FEATURE_CACHE_IO_THREADS));
    String export = c.get(EXPORT_BATCHES);
    boolean peer = c.get(PEER) == TrainPeer.TORCH;
    HotReuse reuse = TrainOptionsDefs.reuse(c);
    if (settings.featureAccess() == FeatureAccessMode.ZERO_COPY && (peer || !export.isEmpty())) {
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
                      Backends.select(c.get(TrainCommandOptions.BACKEND), -1),
                      reuse,
                      c.get(REUSE_ROUNDS))));
      return 0;
    }
    if (export.isEmpty() && !peer) {
      ctx.out()
          .println(
              BenchJson.line(
                  TrainBenchmark.run(
                      settings, Backends.select(c.get(TrainCommandOptions.BACKEND), -1))));
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
