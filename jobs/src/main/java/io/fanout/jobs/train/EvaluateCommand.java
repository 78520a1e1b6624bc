package io.fanout.jobs.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.EvaluateOptions;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.spark.Fanout;
import java.util.List;

/** {@code bin/fanout evaluate}: accuracy per split as JSON on stdout. */
public final class EvaluateCommand implements Command {
  @Override
  public String name() {
    return "evaluate";
  }

  @Override
  public String summary() {
    return "Accuracy of a trained model per split (full-neighbor or sampled inference), as JSON";
  }

  @Override
  public List<OptionDef<?>> options() {
    return EvaluateOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) {
    String json =
        Fanout.get(ctx.spark())
            .evaluate(
                ctx.conf().get(TrainCommandOptions.GRAPH),
                ctx.conf().get(TrainCommandOptions.MODEL_DIR))
            .options(ctx.options())
            .execute()
            .toJson();
    ctx.out().println(json);
    return 0;
  }
}
