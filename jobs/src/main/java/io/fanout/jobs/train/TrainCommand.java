package io.fanout.jobs.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.OptionDef;
import io.fanout.spark.Fanout;
import io.fanout.spark.train.TrainOptionsDefs;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
    return TrainOptionsDefs.TRAIN;
  }

  @Override
  public int run(CommandContext ctx) {
    Map<String, String> opts = new LinkedHashMap<>();
    for (OptionDef<?> d : TrainOptionsDefs.TRAIN) {
      String v = ctx.conf().raw(d);
      if (v != null) {
        opts.put(d.name(), v);
      }
    }
    ctx.out()
        .println(
            Fanout.get(ctx.spark())
                .train(null, null)
                .options(opts)
                .progress(ctx.err())
                .execute()
                .toJson());
    return 0;
  }
}
