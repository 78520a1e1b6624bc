package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.Task;
import io.fanout.train.Defaults;
import java.util.List;

/** The options of {@code bin/fanout quickstart}. */
public final class QuickstartOptions {
  private QuickstartOptions() {}

  public static final OptionDef<String> WORK_DIR =
      SharedOptions.WORK_DIR.withDefault(
          "work-dirs/quickstart", "where the store, shards and model go");
  public static final OptionDef<String> DATASET =
      SharedOptions.DATASET.withDefault(
          "", "dataset directory (vertices.parquet, edges.parquet); default data/cora");
  public static final OptionDef<Integer> EPOCHS =
      SharedOptions.EPOCHS.withDefault(String.valueOf(Defaults.EPOCHS), "training epochs");
  public static final OptionDef<Long> SEED = SharedOptions.SEED.withDefault("0", "random seed");
  public static final OptionDef<Task> TASK =
      SharedOptions.TASK.withDefault(
          "node",
          "node: node classification, prints test accuracy; link: link prediction on held-out"
              + " edges, prints test AUC");
  public static final OptionDef<io.fanout.store.StoreFeatureEncoding> FEATURE_ENCODING =
      QuantizeOptions.FEATURE_ENCODING.withDefault(
          "f32", "train on the prepared store re-encoded by quantize");

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          WORK_DIR,
          DATASET,
          EPOCHS,
          SEED,
          TASK,
          FEATURE_ENCODING,
          TrainCommandOptions.REUSE_HOT,
          TrainCommandOptions.STALENESS,
          TrainCommandOptions.HOT_BY,
          TrainCommandOptions.REUSE_REFRESH,
          TrainCommandOptions.REUSE_BACKWARD,
          TrainCommandOptions.REUSE_ROWS);
}
