package io.fanout.jobs.sample;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.SampleOptions;
import io.fanout.spark.Fanout;
import java.util.List;

/** {@code bin/fanout sample}: the {@code sample} action, with its result as one JSON line. */
public final class SampleCommand implements Command {
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
    return SampleOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) {
    ctx.out()
        .println(
            Fanout.get(ctx.spark())
                .sample(null)
                .options(ctx.options())
                .commandLineTerms()
                .progress(ctx.err())
                .execute()
                .toJson());
    return 0;
  }
}
