package io.fanout.spark;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.options.EvaluateOptions;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.spark.internal.StageWatch;
import io.fanout.spark.train.TypedTrainJob;
import io.fanout.train.Accuracy;
import io.fanout.train.ModelEvaluation;
import io.fanout.train.TrainedModels;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * A configured {@code evaluate}: the accuracy of a trained model per split, with full-neighbor
 * ({@code mode=full}, the default) or sampled inference; options as {@link EvaluateOptions}. The
 * model is the last complete epoch's ({@code checkpoint.bin}), or with {@code checkpoint=best} the
 * epoch of best validation accuracy ({@code best.bin}). Inference runs on the driver, in this JVM,
 * while a one-task Spark job labelled {@code fanout evaluate: ...} stands for it in the caller's
 * job group (else {@code fanout-evaluate}) and with the session's tags: cancelling either stops the
 * inference at its next batch, and {@link #execute()} throws {@link FanoutCancelledException}.
 */
public final class EvaluateAction extends FanoutAction<EvaluateAction, EvaluateResult> {
  EvaluateAction(SparkSession spark, String store, String modelDir) {
    super(spark, "evaluate", EvaluateOptions.ALL);
    option(TrainCommandOptions.GRAPH.name(), store);
    option(TrainCommandOptions.MODEL_DIR.name(), modelDir);
  }

  /**
   * Evaluates the model.
   *
   * @throws io.fanout.store.InvalidInputException on a missing or foreign model, or a bad store
   * @throws io.fanout.conf.FanoutConfigException on bad options
   * @throws FanoutCancelledException when its job group or a session tag was cancelled
   */
  @Override
  public EvaluateResult execute() {
    FanoutConf c = conf();
    return cancellable(
        () -> "nothing was written",
        () -> {
          try (StageWatch watch = StageWatch.start(spark(), stage(), "evaluating on the driver")) {
            return watch.run(() -> evaluate(c));
          }
        });
  }

  private EvaluateResult evaluate(FanoutConf c) {
    if (TypedTrainJob.isTyped(spark(), c.get(TrainCommandOptions.GRAPH))) {
      return evaluateTyped(c);
    }
    int[] fanouts = EvaluateOptions.fanouts(c);
    Path modelDir = Path.of(c.get(TrainCommandOptions.MODEL_DIR));
    if (TrainedModels.task(modelDir, c.get(EvaluateOptions.CHECKPOINT)).equals("link")) {
      if (fanouts != null) {
        throw new io.fanout.conf.FanoutConfigException(
            "evaluate of a link-prediction model runs full-neighbor inference; leave out --neighbors"
                + " sampled");
      }
      return new EvaluateResult(
          spark(),
          ModelEvaluation.linkMetrics(
              Path.of(c.get(TrainCommandOptions.GRAPH)),
              modelDir,
              c.get(EvaluateOptions.CHECKPOINT),
              c.get(SharedOptions.VERIFY)));
    }
    Map<String, Accuracy> acc =
        ModelEvaluation.accuracy(
            Path.of(c.get(TrainCommandOptions.GRAPH)),
            Path.of(c.get(TrainCommandOptions.MODEL_DIR)),
            c.get(EvaluateOptions.CHECKPOINT),
            fanouts,
            c.get(EvaluateOptions.BATCH_SIZE),
            c.get(EvaluateOptions.SEED),
            c.get(SharedOptions.VERIFY));
    return new EvaluateResult(spark(), c.get(EvaluateOptions.NEIGHBORS).id(), fanouts, acc);
  }

  /**
   * A typed store: accuracy, Micro- and Macro-F1 of the model's target type per split, with full
   * neighborhoods or, with {@code --neighbors sampled}, the typed {@code --fanouts} (default 20 per
   * relation and layer).
   */
  private EvaluateResult evaluateTyped(FanoutConf c) {
    Path modelDir = Path.of(c.get(TrainCommandOptions.MODEL_DIR));
    if (TrainedModels.task(modelDir, c.get(EvaluateOptions.CHECKPOINT)).equals("link")) {
      return evaluateTypedLink(c, modelDir);
    }
    String fanouts = null;
    if (c.get(EvaluateOptions.NEIGHBORS) == io.fanout.conf.options.InferenceMode.SAMPLED) {
      fanouts = c.get(EvaluateOptions.FANOUTS);
      if (fanouts.isBlank()) {
        int layers =
            Integer.parseInt(
                io.fanout.train.Checkpoint.readForInference(
                        Path.of(c.get(TrainCommandOptions.MODEL_DIR)),
                        c.get(EvaluateOptions.CHECKPOINT))
                    .meta()
                    .getOrDefault("model.layers", "2"));
        fanouts = "*=" + String.join(",", java.util.Collections.nCopies(layers, "20"));
      }
    }
    Path graph = Path.of(c.get(TrainCommandOptions.GRAPH));
    io.fanout.graph.TypedGraph g =
        TypedTrainJob.opener(spark()).open(graph, c.get(SharedOptions.VERIFY));
    try {
      return new EvaluateResult(
          spark(),
          fanouts,
          io.fanout.train.typed.TypedModelEvaluation.evaluate(
              g,
              Path.of(c.get(TrainCommandOptions.MODEL_DIR)),
              c.get(EvaluateOptions.CHECKPOINT),
              fanouts,
              c.get(EvaluateOptions.BATCH_SIZE),
              c.get(EvaluateOptions.SEED)));
    } finally {
      g.close();
    }
  }

  /** A typed link model: its metrics on the store's held-out val and test edges, full neighbors. */
  private EvaluateResult evaluateTypedLink(FanoutConf c, Path modelDir) {
    if (c.get(EvaluateOptions.NEIGHBORS) == io.fanout.conf.options.InferenceMode.SAMPLED) {
      throw new io.fanout.conf.FanoutConfigException(
          "evaluate of a link-prediction model runs full-neighbor inference; leave out --neighbors"
              + " sampled");
    }
    Path graph = Path.of(c.get(TrainCommandOptions.GRAPH));
    try (io.fanout.graph.TypedGraphStore g =
        io.fanout.graph.TypedGraphStore.open(graph, c.get(SharedOptions.VERIFY))) {
      return new EvaluateResult(
          spark(),
          io.fanout.train.typed.TypedModelEvaluation.linkMetrics(
              g,
              modelDir,
              c.get(EvaluateOptions.CHECKPOINT),
              c.get(EvaluateOptions.BATCH_SIZE),
              c.get(EvaluateOptions.SEED)));
    }
  }
}
