package io.fanout.spark.train;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import java.util.List;

/** The options of {@code infer}, for the API and {@code bin/fanout infer}. */
public final class InferOptions {
  private InferOptions() {}

  public static final OptionDef<String> OUTPUT =
      OptionDef.string(
          "output",
          "",
          "output directory of the Parquet predictions (id, dense_id, prediction, probabilities)");
  public static final OptionDef<String> EMBEDDINGS =
      OptionDef.string(
          "embeddings",
          "",
          "output directory of the Parquet node embeddings (id, dense_id, embedding: the last"
              + " hidden layer)");
  public static final OptionDef<Boolean> OVERWRITE =
      OptionDef.bool("overwrite", false, "replace outputs of a different request");

  /** Every option of {@code infer}, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          TrainOptionsDefs.GRAPH,
          TrainOptionsDefs.MODEL_DIR,
          OUTPUT,
          EMBEDDINGS,
          EvaluateOptions.CHECKPOINT,
          EvaluateOptions.MODE,
          EvaluateOptions.FANOUTS,
          EvaluateOptions.BATCH_SIZE,
          EvaluateOptions.SEED,
          OVERWRITE,
          SharedOptions.VERIFY);
}
