package io.fanout.bench.train;

import static io.fanout.conf.options.BenchCacheOptions.*;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.options.BenchCacheOptions;
import java.util.List;

/**
 * {@code bin/fanout bench-cache}: how fast the feature cache serves batches on its own (planning,
 * bookkeeping and reads, no training), per policy, against copying the same rows from memory (see
 * {@code docs/feature-cache.md}).
 */
public final class BenchCacheCommand implements Command {
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
    return BenchCacheOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) {
    FanoutConf c = ctx.conf();
    ctx.out()
        .println(
            BenchJson.line(
                CacheReplayBenchmark.run(
                    new CacheReplayBenchmark.Settings(
                        Math.toIntExact(c.get(NUM_VERTICES)),
                        c.get(NUM_EDGES),
                        c.get(FEATURE_DIM),
                        SharedOptions.fanouts(c.get(FANOUTS)),
                        c.get(BATCH_SIZE),
                        c.get(BATCHES),
                        c.get(LOADER_THREADS),
                        c.get(CACHE_FRACTION),
                        List.of(c.get(POLICIES).split(",")),
                        c.get(ACCESS).id(),
                        c.get(IO_THREADS),
                        c.get(ROUNDS)))));
    return 0;
  }
}
