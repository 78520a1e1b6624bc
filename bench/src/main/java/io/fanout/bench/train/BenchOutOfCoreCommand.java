package io.fanout.bench.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.BenchOutOfCoreOptions;
import java.util.List;

/**
 * {@code bin/fanout bench-out-of-core}: the feature cache's useful read rate with {@code O_DIRECT},
 * per row layout and read merging, against the disk's own random and sequential rates measured in
 * the same run (see {@code docs/feature-cache.md}).
 */
public final class BenchOutOfCoreCommand implements Command {
  @Override
  public String name() {
    return "bench-out-of-core";
  }

  @Override
  public String summary() {
    return "Benchmark the feature cache's O_DIRECT reads against the disk's own read rates";
  }

  @Override
  public List<OptionDef<?>> options() {
    return BenchOutOfCoreOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) {
    ctx.out()
        .println(
            BenchJson.line(
                OutOfCoreBenchmark.run(OutOfCoreBenchmark.settings(ctx.conf()), ctx.err())));
    return 0;
  }
}
