package io.fanout.bench.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.spark.train.TrainOptionsDefs;
import io.fanout.train.TrainFeatureCache;
import java.util.List;

/**
 * {@code bin/fanout bench-cache}: how fast the feature cache serves batches on its own (planning,
 * bookkeeping and reads, no training), per policy, against copying the same rows from memory (see
 * {@code docs/features.md}).
 */
public final class BenchCacheCommand implements Command {
  // The graph of bench-train (products size by default), sampled the same way.
  static final OptionDef<Integer> VERTICES = BenchTrainCommand.VERTICES;
  static final OptionDef<Long> EDGES = BenchTrainCommand.EDGES;
  static final OptionDef<Integer> FEATURES = BenchTrainCommand.FEATURES;
  static final OptionDef<String> FANOUTS = BenchTrainCommand.FANOUTS;
  static final OptionDef<Integer> BATCH_SIZE = BenchTrainCommand.BATCH_SIZE;
  static final OptionDef<Integer> BATCHES =
      OptionDef.integer("batches", 40, "batches sampled once and replayed through each cache");
  static final OptionDef<Integer> LOADER_THREADS =
      OptionDef.integer("loader-threads", 2, "threads sampling the batches");
  static final OptionDef<Double> CACHE_FRACTION =
      OptionDef.doubleValue("cache-fraction", 0.05, "cache size, a fraction of the feature bytes");
  static final OptionDef<String> POLICIES =
      OptionDef.string("policies", "belady,lru", "cache policies to replay (belady,lru,none)");
  static final OptionDef<String> ACCESS =
      OptionDef.choice(
          "access",
          "resolve",
          "resolve: make each batch's rows present in the cache's pages (zero-copy readers);"
              + " gather: decode them into a buffer",
          "resolve",
          "gather");
  static final OptionDef<Integer> IO_THREADS =
      OptionDef.integer("io-threads", TrainFeatureCache.IO_THREADS, "threads reading misses");
  static final OptionDef<Integer> ROUNDS =
      OptionDef.integer("rounds", 2, "replays of every policy (the fastest is reported)");

  @Override
  public String name() {
    return "bench-cache";
  }

  @Override
  public String summary() {
    return "Benchmark the feature cache's own throughput per policy, against reading memory";
  }

  @Override
  public List<OptionDef<?>> options() {
    return List.of(
        VERTICES,
        EDGES,
        FEATURES,
        FANOUTS,
        BATCH_SIZE,
        BATCHES,
        LOADER_THREADS,
        CACHE_FRACTION,
        POLICIES,
        ACCESS,
        IO_THREADS,
        ROUNDS);
  }

  @Override
  public int run(CommandContext ctx) {
    FanoutConf c = ctx.conf();
    ctx.out()
        .println(
            BenchJson.line(
                CacheReplayBenchmark.run(
                    new CacheReplayBenchmark.Settings(
                        c.get(VERTICES),
                        c.get(EDGES),
                        c.get(FEATURES),
                        TrainOptionsDefs.fanouts(c.get(FANOUTS)),
                        c.get(BATCH_SIZE),
                        c.get(BATCHES),
                        c.get(LOADER_THREADS),
                        c.get(CACHE_FRACTION),
                        List.of(c.get(POLICIES).split(",")),
                        c.get(ACCESS),
                        c.get(IO_THREADS),
                        c.get(ROUNDS)))));
    return 0;
  }
}
