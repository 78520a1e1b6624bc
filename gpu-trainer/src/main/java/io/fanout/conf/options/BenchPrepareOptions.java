package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import java.util.List;

/** The options of {@code bin/fanout bench-prepare}. */
public final class BenchPrepareOptions {
  private BenchPrepareOptions() {}

  public static final OptionDef<Long> NUM_VERTICES =
      SharedOptions.NUM_VERTICES.withDefault("10000000", "vertices of the generated graph");
  public static final OptionDef<Long> NUM_EDGES =
      SharedOptions.NUM_EDGES.withDefault("100000000", "directed edge rows of the generated graph");
  public static final OptionDef<Integer> FEATURE_DIM =
      SharedOptions.FEATURE_DIM.withDefault("16", "features per vertex");
  public static final OptionDef<Integer> PARTITIONS =
      PrepareOptions.PARTITIONS.withDefault("0", "store partitions (0 = prepare's default)");
  public static final OptionDef<String> WORK_DIR =
      SharedOptions.WORK_DIR.withDefault(
          "target/bench-prepare", "folder for the input and the store");
  public static final OptionDef<BenchEdgeSort> EDGE_SORT =
      PrepareOptions.EDGE_SORT.withAddedChoices(
          BenchEdgeSort.TASK,
          "prepare's --edge-sort; both = prepare twice in this run (task, then sql: the second"
              + " runs in a warmer JVM), report each against the same scan and check that the"
              + " stores are byte-identical",
          BenchEdgeSort::parse,
          BenchEdgeSort.values());
  public static final OptionDef<BenchIdLookup> ID_LOOKUP =
      PrepareOptions.ID_LOOKUP.withAddedChoices(
          BenchIdLookup.AUTO,
          "prepare's --id-lookup; both = prepare twice in this run (task, then sql, both with"
              + " --edge-sort task), report each against the same scan and check that the stores"
              + " are byte-identical",
          BenchIdLookup::parse,
          BenchIdLookup.values());
  public static final OptionDef<Boolean> KEEP =
      SharedOptions.KEEP.withDefault("false", "keep the generated input and the store afterwards");
  public static final OptionDef<String> INPUT =
      OptionDef.string(
          "input",
          "",
          "folder holding vertices.parquet and edges.parquet (as bin/fanout generate writes them)"
              + " to prepare instead of generating a graph; never modified or removed");

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          NUM_VERTICES,
          NUM_EDGES,
          FEATURE_DIM,
          PARTITIONS,
          EDGE_SORT,
          ID_LOOKUP,
          WORK_DIR,
          KEEP,
          INPUT);
}
