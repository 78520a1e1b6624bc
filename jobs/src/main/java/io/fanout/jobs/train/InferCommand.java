package io.fanout.jobs.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.spark.train.TrainOptionsDefs;
import io.fanout.train.ModelRuns;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** {@code bin/fanout infer}: Parquet predictions keyed by the original vertex ids. */
public final class InferCommand implements Command {
  static final OptionDef<String> OUTPUT =
      OptionDef.string("output", null, "output directory of the Parquet predictions");
  static final OptionDef<Boolean> OVERWRITE =
      OptionDef.bool("overwrite", false, "replace an existing output directory");

  @Override
  public String name() {
    return "infer";
  }

  @Override
  public String summary() {
    return "Write Parquet predictions (id, dense_id, prediction, probabilities) for every vertex";
  }

  @Override
  public List<OptionDef<?>> options() {
    return List.of(
        TrainOptionsDefs.GRAPH,
        TrainOptionsDefs.MODEL_DIR,
        OUTPUT,
        EvaluateCommand.MODE,
        EvaluateCommand.FANOUTS,
        EvaluateCommand.BATCH_SIZE,
        EvaluateCommand.SEED,
        OVERWRITE);
  }

  @Override
  public int run(CommandContext ctx) {
    FanoutConf c = ctx.conf();
    Path modelDir = Path.of(c.get(TrainOptionsDefs.MODEL_DIR));
    int[] fanouts =
        EvaluateCommand.resolveFanouts(
            c.get(EvaluateCommand.MODE), c.get(EvaluateCommand.FANOUTS), modelDir);
    long rows =
        ModelRuns.infer(
            Path.of(c.get(TrainOptionsDefs.GRAPH)),
            modelDir,
            Path.of(c.get(OUTPUT)),
            fanouts,
            c.get(EvaluateCommand.BATCH_SIZE),
            c.get(EvaluateCommand.SEED),
            c.get(OVERWRITE));
    ctx.out().printf(Locale.ROOT, "{\"output\":\"%s\",\"rows\":%d}%n", c.get(OUTPUT), rows);
    return 0;
  }
}
