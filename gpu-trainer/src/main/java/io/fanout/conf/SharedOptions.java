package io.fanout.conf;

import io.fanout.sample.Fanouts;

/**
 * Options that several commands share: each name is defined here once, and a command whose default
 * or wording differs derives its option with {@link OptionDef#withDefault}.
 */
public final class SharedOptions {
  private SharedOptions() {}

  public static final OptionDef<Long> SEED = OptionDef.longValue("seed", 0, "random seed");
  public static final OptionDef<Integer> BATCH_SIZE =
      OptionDef.integer("batch-size", 1024, "seeds per batch");
  public static final OptionDef<String> FANOUTS =
      OptionDef.string("fanouts", "", "fanouts (one per layer)");
  public static final OptionDef<Integer> LOADER_THREADS =
      OptionDef.integer("loader-threads", 2, "background threads reading and decoding shards");
  public static final OptionDef<Integer> PREFETCH =
      OptionDef.integer("prefetch", 2, "batches each loader thread keeps ready");
  public static final OptionDef<String> WORK_DIR =
      OptionDef.string("work-dir", "", "folder for a command's generated inputs and outputs");
  public static final OptionDef<String> GRAPH =
      OptionDef.string("graph", null, "graph store directory (written by prepare)");
  public static final OptionDef<String> SHARDS =
      OptionDef.string("shards", null, "training shards directory written by bin/fanout sample");
  public static final OptionDef<String> OUTPUT =
      OptionDef.string("output", null, "directory to write");
  public static final OptionDef<Boolean> OVERWRITE =
      OptionDef.bool("overwrite", false, "replace outputs of a different request");
  public static final OptionDef<IfExists> IF_EXISTS =
      OptionDef.enumeration(
          "if-exists",
          IfExists.SAME,
          "when the output holds something: same (skip an identical complete output, refuse"
              + " another), ignore, error, overwrite or resume (train)",
          IfExists::parse,
          IfExists.values());
  public static final OptionDef<Task> TASK =
      OptionDef.enumeration(
          "task", Task.NODE, "node classification or link prediction", Task::parse, Task.values());
  public static final OptionDef<Integer> EPOCHS = OptionDef.integer("epochs", 1, "epochs");
  public static final OptionDef<Integer> HIDDEN = OptionDef.integer("hidden", 64, "hidden width");
  public static final OptionDef<Double> DROPOUT =
      OptionDef.doubleValue("dropout", 0.5, "dropout on every layer's input");
  public static final OptionDef<String> DATASET =
      OptionDef.string("dataset", "", "dataset directory (vertices.parquet, edges.parquet)");
  public static final OptionDef<Integer> BATCHES =
      OptionDef.integer("batches", 20, "batches timed");
  public static final OptionDef<Integer> BATCHES_PER_SHARD =
      OptionDef.integer("batches-per-shard", 8, "batches per shard part");
  public static final OptionDef<Integer> FEATURE_DIM =
      OptionDef.integer("feature-dim", 16, "features per vertex");
  public static final OptionDef<Boolean> KEEP =
      OptionDef.bool("keep", false, "keep the generated input and the store afterwards");
  public static final OptionDef<String> SRC_COLUMN =
      OptionDef.string("src-column", "src", "edge source column");
  public static final OptionDef<String> DST_COLUMN =
      OptionDef.string("dst-column", "dst", "edge destination column");
  public static final OptionDef<Boolean> WEIGHTED =
      OptionDef.bool("weighted", false, "sample neighbors by edge weight");
  public static final OptionDef<Long> NUM_VERTICES =
      OptionDef.longValue("num-vertices", 10_000, "vertices of the generated graph");
  public static final OptionDef<Long> NUM_EDGES =
      OptionDef.longValue("num-edges", 60_000_000L, "edges of the generated graph");

  /**
   * Checking what a command reads: {@code sample}, {@code train}, {@code evaluate} and {@code
   * infer}. Also read as {@code spark.fanout.verify}, so a session can turn it off for every stage.
   */
  public static final OptionDef<Boolean> VERIFY =
      OptionDef.bool(
          "verify",
          true,
          "check every file read against its manifest's size and CRC32C and refuse a damaged one:"
              + " the graph store's files once per process (in parallel), each shard part as it"
              + " is read, before any of its batches is used; false skips the checks");

  /**
   * Parses a {@code --fanouts} value such as {@code 15,10,5} with {@link Fanouts#parse}, the one
   * parser of that syntax; blank means none (null).
   *
   * @throws FanoutConfigException naming the option and the value
   */
  public static int[] fanouts(String s) {
    if (s == null || s.isBlank()) {
      return null;
    }
    try {
      return Fanouts.parse(s);
    } catch (IllegalArgumentException e) {
      throw new FanoutConfigException("--fanouts has value '" + s + "': " + e.getMessage());
    }
  }
}
