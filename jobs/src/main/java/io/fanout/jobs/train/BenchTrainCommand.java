package io.fanout.jobs.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.spark.train.TrainOptionsDefs;
import io.fanout.tensor.Backends;
import io.fanout.train.BenchJson;
import io.fanout.train.TrainBenchmark;
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
        TrainOptionsDefs.BACKEND);
  }

  @Override
  public int run(CommandContext ctx) {
    FanoutConf c = ctx.conf();
    int[] fanouts = TrainOptionsDefs.fanouts(c.get(FANOUTS));
    Map<String, Object> r =
        TrainBenchmark.run(
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
                c.get(VERIFY_ROUNDS)),
            Backends.select(c.get(TrainOptionsDefs.BACKEND), -1));
    ctx.out().println(BenchJson.line(r));
    return 0;
  }
}
