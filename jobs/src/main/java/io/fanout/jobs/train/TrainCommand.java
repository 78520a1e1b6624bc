package io.fanout.jobs.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.dist.DistOptions;
import io.fanout.train.Defaults;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** {@code bin/fanout train}: trains a GNN on mini-batch shards, checkpointing every epoch. */
public final class TrainCommand implements Command {
  static final OptionDef<String> SHARDS =
      OptionDef.string("shards", null, "training shards directory written by bin/fanout sample");
  static final OptionDef<String> MODEL =
      OptionDef.choice("model", Defaults.MODEL, "GNN architecture", "sage", "gcn");
  static final OptionDef<Integer> HIDDEN =
      OptionDef.integer("hidden", Defaults.HIDDEN, "hidden width");
  static final OptionDef<Integer> LAYERS =
      OptionDef.integer("layers", 0, "GNN layers; must equal the shards' hops (0: take theirs)");
  static final OptionDef<Double> DROPOUT =
      OptionDef.doubleValue("dropout", Defaults.DROPOUT, "dropout on every layer's input");
  static final OptionDef<String> ACTIVATION =
      OptionDef.choice(
          "activation", Defaults.ACTIVATION, "activation between layers", "relu", "elu");
  static final OptionDef<String> FEATURE_NORM =
      OptionDef.choice(
          "feature-norm",
          Defaults.FEATURE_NORM,
          "row normalization of input features",
          "none",
          "l1",
          "l2");
  static final OptionDef<Double> LR =
      OptionDef.doubleValue("lr", Defaults.LR, "Adam learning rate");
  static final OptionDef<Double> WEIGHT_DECAY =
      OptionDef.doubleValue(
          "weight-decay", Defaults.WEIGHT_DECAY, "L2 weight decay added to the gradients");
  static final OptionDef<String> SCHEDULE =
      OptionDef.choice(
          "schedule", Defaults.SCHEDULE, "learning rate schedule", "constant", "cosine", "step");
  static final OptionDef<Integer> EPOCHS =
      OptionDef.integer("epochs", Defaults.EPOCHS, "epochs in total");
  static final OptionDef<Long> SEED =
      OptionDef.longValue("seed", 0, "seeds initialization and dropout");
  static final OptionDef<Boolean> RESUME =
      OptionDef.bool("resume", false, "continue from the model dir's last complete checkpoint");
  static final OptionDef<String> VAL_SHARDS =
      OptionDef.string("val-shards", "", "validation shards, evaluated after every epoch");
  static final OptionDef<Integer> LOADER_THREADS =
      OptionDef.integer("loader-threads", 2, "background threads reading and decoding shards");
  static final OptionDef<Integer> PREFETCH =
      OptionDef.integer("prefetch", 2, "batches each loader thread keeps ready");
  static final OptionDef<Integer> LOG_EVERY =
      OptionDef.integer("log-every", 50, "progress line every this many batches (0: per epoch)");

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
    return List.of(
        TrainOptionsDefs.GRAPH,
        SHARDS,
        TrainOptionsDefs.MODEL_DIR,
        MODEL,
        HIDDEN,
        LAYERS,
        DROPOUT,
        ACTIVATION,
        FEATURE_NORM,
        LR,
        WEIGHT_DECAY,
        SCHEDULE,
        EPOCHS,
        SEED,
        RESUME,
        VAL_SHARDS,
        LOADER_THREADS,
        PREFETCH,
        LOG_EVERY,
        DistOptions.WORKERS,
        DistOptions.TIMEOUT_MS,
        DistOptions.PORT,
        DistOptions.VERIFY);
  }

  /** The training run the resolved options describe. */
  static TrainJobs.TrainSpec spec(FanoutConf c) {
    String val = c.get(VAL_SHARDS);
    return new TrainJobs.TrainSpec(
        Path.of(c.get(TrainOptionsDefs.GRAPH)),
        Path.of(c.get(SHARDS)),
        Path.of(c.get(TrainOptionsDefs.MODEL_DIR)),
        c.get(MODEL),
        c.get(HIDDEN),
        c.get(LAYERS),
        c.get(DROPOUT).floatValue(),
        c.get(ACTIVATION),
        c.get(FEATURE_NORM),
        c.get(LR).floatValue(),
        c.get(WEIGHT_DECAY).floatValue(),
        c.get(SCHEDULE),
        c.get(EPOCHS),
        c.get(SEED),
        c.get(RESUME),
        val.isBlank() ? null : Path.of(val),
        c.get(LOADER_THREADS),
        c.get(PREFETCH),
        c.get(LOG_EVERY));
  }

  @Override
  public int run(CommandContext ctx) {
    FanoutConf c = ctx.conf();
    TrainJobs.TrainSpec spec = spec(c);
    int workers = DistributedTrain.workers(ctx, c.get(DistOptions.WORKERS));
    if (workers > 1) {
      DistributedTrain.Outcome o = DistributedTrain.run(ctx, c, spec, workers);
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
    TrainJobs.TrainResult r = TrainJobs.train(spec, ctx.err());
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
