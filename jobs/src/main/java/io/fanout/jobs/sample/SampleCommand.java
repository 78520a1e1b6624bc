package io.fanout.jobs.sample;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.spark.sample.SampleJob;
import io.fanout.spark.sample.SampleOptions;
import java.util.List;

/** {@code bin/fanout sample}: the {@code sample} job, with its result as one JSON line. */
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
  public int run(CommandContext ctx) throws Exception {
    if (!ctx.positional().isEmpty()) {
      throw new FanoutConfigException(
          "sample takes no positional arguments, got " + ctx.positional());
    }
    ctx.out()
        .println(
            new ObjectMapper()
                .writeValueAsString(SampleJob.run(ctx.spark(), ctx.conf(), ctx.err())));
    return 0;
  }
}
