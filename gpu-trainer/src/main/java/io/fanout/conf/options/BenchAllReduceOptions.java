package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import java.util.List;

/** The options of {@code bin/fanout bench-all-reduce}. */
public final class BenchAllReduceOptions {
  private BenchAllReduceOptions() {}

  public static final OptionDef<String> SIZES =
      OptionDef.string(
          "sizes-mb", "1,16,64", "gradient sizes to all-reduce, in MiB (4-byte floats)");
  public static final OptionDef<Integer> RANKS =
      OptionDef.integer("ranks", 2, "in-process ranks exchanging over loopback TCP");
  public static final OptionDef<Integer> REPEATS =
      OptionDef.integer("repeats", 5, "timed repetitions per size; the best is reported");
  public static final OptionDef<Boolean> TRAIN =
      OptionDef.bool(
          "train", true, "also time synthetic distributed training with 1 and 2 barrier workers");
  public static final OptionDef<Integer> EXAMPLES =
      OptionDef.integer("examples", 20_000, "synthetic training examples");
  public static final OptionDef<Integer> FEATURE_DIM =
      SharedOptions.FEATURE_DIM.withDefault(
          "256", "synthetic training features (model: feature-dim x 10)");
  public static final OptionDef<Integer> BATCH =
      SharedOptions.BATCH_SIZE.withDefault(
          "64", "per-worker mini-batch size of the synthetic training");
  public static final OptionDef<String> GRAPH =
      SharedOptions.GRAPH.withDefault(
          "", "graph store for timing the GNN trainer with 1 and 2 workers (optional)");
  public static final OptionDef<String> SHARDS =
      SharedOptions.SHARDS.withDefault("", "training shards of --graph (with --graph)");
  public static final OptionDef<Integer> TRAIN_EPOCHS =
      OptionDef.integer("train-epochs", 5, "epochs of the GNN trainer timing (with --graph)");

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          SIZES, RANKS, REPEATS, TRAIN, EXAMPLES, FEATURE_DIM, BATCH, GRAPH, SHARDS, TRAIN_EPOCHS);
}
