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
import io.fanout.spark.train.TrainOptionsDefs;
import io.fanout.train.HotReuse;
import java.util.List;

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
            c.get(FEATURE_CACHE_IO_THREADS),
            c.get(SGEMM_SIZE));
    String export = c.get(EXPORT_BATCHES);
    boolean peer = c.get(PEER) == TrainPeer.TORCH;
    HotReuse reuse = TrainOptionsDefs.reuse(c);
    if (reuse.enabled()) {
      ctx.out()
          .println(
              BenchJson.line(
                  HotReuseBenchmark.run(
                      settings, BenchBackend.select(c), reuse, c.get(REUSE_ROUNDS))));
      return 0;
    }
    if (export.isEmpty() && !peer) {
      ctx.out().println(BenchJson.line(TrainBenchmark.run(settings, BenchBackend.select(c))));
      return 0;
    }
    PeerBenchmarkRun run =
        new PeerBenchmarkRun(
            settings,
            BenchBackend.select(c),
            c.get(DROPOUT).floatValue(),
            export,
            PeerBenchmarkRun.torch(peer, c.get(PEER_SCRIPT), ctx.err()),
            c.get(PEER_ROUNDS));
    ctx.out().println(BenchJson.line(run.run(ctx.err())));
    return 0;
  }
}
