package io.fanout.jobs.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.InferOptions;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.spark.Fanout;
import java.util.List;

/**
 * {@code bin/fanout infer}: Parquet predictions and/or embeddings keyed by original vertex ids, or
 * the scores of candidate pairs of a link model.
 */
public final class InferCommand implements Command {
  @Override
  public String name() {
    return "infer";
  }

  @Override
  public String summary() {
    return "Write Parquet predictions (--output) and/or node embeddings (--embeddings) for every"
        + " vertex, or scores of candidate pairs (--task link --pairs TABLE --output DIR)";
  }

  @Override
  public List<OptionDef<?>> options() {
    return InferOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) {
    String json =
        Fanout.get(ctx.spark())
            .infer(
                ctx.conf().get(TrainCommandOptions.GRAPH),
                ctx.conf().get(TrainCommandOptions.MODEL_DIR))
            .options(ctx.options())
            .commandLineTerms()
            .execute()
            .toJson();
    ctx.out().println(json);
    return 0;
  }
}
