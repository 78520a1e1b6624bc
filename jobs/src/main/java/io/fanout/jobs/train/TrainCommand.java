package io.fanout.jobs.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.spark.train.DistOptions;
import io.fanout.spark.train.DistributedTrain;
import io.fanout.spark.train.TrainOptionsDefs;
import io.fanout.train.ModelRuns;
import java.util.List;
import java.util.Locale;

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
    FanoutConf c = ctx.conf();
    ModelRuns.TrainSpec spec = TrainOptionsDefs.spec(c);
    int workers = DistributedTrain.workers(ctx.spark(), ctx.master(), c.get(DistOptions.WORKERS));
    if (workers > 1) {
      DistributedTrain.Outcome o = DistributedTrain.run(ctx.spark(), ctx.err(), c, spec, workers);
      ctx.out()
          .printf(
              Locale.ROOT,
              "{\"model_dir\":\"%s\",\"model\":\"%s\",\"layers\":%d,\"epochs_run\":%d,"
                  + "\"final_loss\":%s,\"train_seconds\":%.3f,\"data_wait_fraction\":%.4f,"
                  + "\"workers\":%d,\"stage_attempt\":%d}%n",
              spec.modelDir(),
              o.model(),
              o.layers(),
              o.epochsRun(),
              Double.isNaN(o.finalLoss())
                  ? "null"
                  : String.format(Locale.ROOT, "%.6f", o.finalLoss()),
              o.seconds(),
              o.seconds() > 0 ? o.waitSeconds() / o.seconds() : 0,
              workers,
              o.stageAttempt());
      return 0;
    }
    ModelRuns.TrainResult r = ModelRuns.train(spec, ctx.err());
    double wait = 0;
    double secs = 0;
    for (var e : r.epochs()) {
      wait += e.waitSeconds();
      secs += e.seconds();
    }
    var last = r.epochs().isEmpty() ? null : r.epochs().get(r.epochs().size() - 1);
    ctx.out()
        .printf(
            Locale.ROOT,
            "{\"model_dir\":\"%s\",\"model\":\"%s\",\"layers\":%d,\"epochs_run\":%d,"
                + "\"final_loss\":%s,\"train_seconds\":%.3f,\"data_wait_fraction\":%.4f}%n",
            spec.modelDir(),
            r.config().kind(),
            r.config().layers(),
            r.epochs().size(),
            last == null ? "null" : String.format(Locale.ROOT, "%.6f", last.loss()),
            secs,
            secs > 0 ? wait / secs : 0);
    return 0;
  }
}
