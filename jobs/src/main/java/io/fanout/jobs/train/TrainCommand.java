package io.fanout.jobs.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.spark.Fanout;
import java.util.List;

/** {@code bin/fanout train}: trains a GNN on mini-batch shards, checkpointing every epoch. */
public final class TrainCommand implements Command {
  @Override
  public String name() {
    return "train";
  }

  @Override
  public String summary() {
    return "Train a GraphSAGE or GCN model on mini-batch shards (checkpoint per epoch, --resume)";
  }

  @Override
  public List<OptionDef<?>> options() {
    return TrainCommandOptions.TRAIN;
  }

  @Override
  public int run(CommandContext ctx) {
    ctx.out()
        .println(
            Fanout.get(ctx.spark())
                .train(null, null)
                .options(ctx.options())
                .commandLineTerms()
                .progress(ctx.err())
                .execute()
                .toJson());
    return 0;
  }
}
