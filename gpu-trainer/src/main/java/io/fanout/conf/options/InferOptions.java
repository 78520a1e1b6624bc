package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.Task;
import java.util.List;

/** The options of {@code infer}, for the API and {@code bin/fanout infer}. */
public final class InferOptions {
  private InferOptions() {}

  public static final OptionDef<String> OUTPUT =
      SharedOptions.OUTPUT.withDefault(
          "",
          "output directory of the Parquet predictions (id, dense_id, prediction, probabilities)");
  public static final OptionDef<String> EMBEDDINGS =
      OptionDef.string(
          "embeddings",
          "",
          "output directory of the Parquet node embeddings (id, dense_id, embedding: the last"
              + " hidden layer; of a link model, the embeddings its pairs are scored on)");
  public static final OptionDef<Task> TASK =
      SharedOptions.TASK.withDefault(
          "node",
          "node: per-vertex predictions (--output) and embeddings; link: scores of the --pairs"
              + " candidate pairs (--output) with a link model");
  public static final OptionDef<String> PAIRS =
      OptionDef.string(
          "pairs",
          "",
          "with --task link: table of candidate pairs by original vertex ids, scored into --output"
              + " (src, dst, score)");
  public static final OptionDef<TableFormat> PAIRS_FORMAT =
      OptionDef.enumeration(
          "pairs-format",
          TableFormat.PARQUET,
          "format of --pairs (csv: with a header)",
          TableFormat::parse,
          TableFormat.values());
  public static final OptionDef<String> SRC_COLUMN =
      SharedOptions.SRC_COLUMN.withDefault("src", "source id column of --pairs");
  public static final OptionDef<String> DST_COLUMN =
      SharedOptions.DST_COLUMN.withDefault("dst", "destination id column of --pairs");
  public static final OptionDef<String> TRAINED_ON =
      OptionDef.string(
          "trained-on",
          "",
          "inductive inference: the store the model was trained on, when --graph is another one"
              + " (e.g. with vertices or edges added since); --graph must agree with it on feature"
              + " width and encoding, classes and graph options");
  public static final OptionDef<Boolean> OVERWRITE =
      SharedOptions.OVERWRITE.withDefault("false", "replace outputs of a different request");

  /** Every option of {@code infer}, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          TrainCommandOptions.GRAPH,
          TrainCommandOptions.MODEL_DIR,
          TASK,
          OUTPUT,
          EMBEDDINGS,
          PAIRS,
          PAIRS_FORMAT,
          SRC_COLUMN,
          DST_COLUMN,
          EvaluateOptions.CHECKPOINT,
          EvaluateOptions.NEIGHBORS,
          EvaluateOptions.FANOUTS,
          EvaluateOptions.BATCH_SIZE,
          EvaluateOptions.SEED,
          TRAINED_ON,
          OVERWRITE,
          SharedOptions.IF_EXISTS,
          SharedOptions.VERIFY);
}
