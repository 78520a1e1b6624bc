package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.store.StoreLayout;
import io.fanout.train.Defaults;
import java.util.List;

/** The options of {@code bin/fanout quickstart}. */
public final class QuickstartOptions {
  private QuickstartOptions() {}

  public static final OptionDef<String> WORK_DIR =
      OptionDef.string("work-dir", "work-dirs/quickstart", "where the store, shards and model go");
  public static final OptionDef<String> DATASET =
      OptionDef.string(
          "dataset", "", "dataset directory (vertices.parquet, edges.parquet); default data/cora");
  public static final OptionDef<Integer> EPOCHS =
      OptionDef.integer("epochs", Defaults.EPOCHS, "training epochs");
  public static final OptionDef<Long> SEED = OptionDef.longValue("seed", 0, "random seed");
  public static final OptionDef<String> TASK =
      OptionDef.choice(
          "task",
          "node",
          "node: node classification, prints test accuracy; link: link prediction on held-out"
              + " edges, prints test AUC",
          "node",
          "link");
  public static final OptionDef<String> FEATURE_ENCODING =
      OptionDef.choice(
          "feature-encoding",
          "f32",
          "train on the prepared store re-encoded by quantize",
          StoreLayout.encodingNames());

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
