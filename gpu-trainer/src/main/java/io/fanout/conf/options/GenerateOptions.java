package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import java.util.List;

/** The options of {@code bin/fanout generate}. */
public final class GenerateOptions {
  private GenerateOptions() {}

  public static final OptionDef<String> OUTPUT =
      SharedOptions.OUTPUT.withDefault(
          null,
          "folder for vertices.parquet and edges.parquet (--types: vertices/, edges/, graph.json)");
  public static final OptionDef<Long> NUM_VERTICES =
      SharedOptions.NUM_VERTICES.withDefault("10000", "number of vertices");
  public static final OptionDef<Long> NUM_EDGES =
      SharedOptions.NUM_EDGES.withDefault("100000", "number of directed edge rows");
  public static final OptionDef<Integer> FEATURE_DIM =
      SharedOptions.FEATURE_DIM.withDefault("16", "features per vertex");
  public static final OptionDef<Integer> CLASSES =
      OptionDef.integer("classes", 8, "number of communities (labels)");
  public static final OptionDef<Long> SEED = SharedOptions.SEED.withDefault("0", "random seed");
  public static final OptionDef<Double> HOMOPHILY =
      OptionDef.doubleValue(
          "homophily", 0.8, "probability that an edge stays inside its source's community");
  public static final OptionDef<Integer> TASKS =
      OptionDef.integer("tasks", 0, "Spark tasks (and files) per table; 0 = default parallelism");
  public static final OptionDef<String> TYPES =
      OptionDef.string(
          "types",
          "",
          "a typed graph: vertex types 'name:count[:dim],...' (dim 0 = no features, left out ="
              + " --feature-dim), written with --relations as a table per type and relation and"
              + " graph.json for prepare --graph-spec; empty = one vertex and one edge table");
  public static final OptionDef<String> RELATIONS =
      OptionDef.string(
          "relations",
          "",
          "--types: relations '[name=]src>dst:edges[:homophily],...' (name left out = src_dst,"
              + " homophily = --homophily)");
  public static final OptionDef<String> TARGET_TYPE =
      OptionDef.string(
          "target-type", "", "--types: the type given labels and splits; empty = the first type");
  public static final OptionDef<Boolean> OVERWRITE =
      SharedOptions.OVERWRITE.withDefault("false", "replace existing tables in the output folder");

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          OUTPUT,
          NUM_VERTICES,
          NUM_EDGES,
          FEATURE_DIM,
          CLASSES,
          SEED,
          HOMOPHILY,
          TYPES,
          RELATIONS,
          TARGET_TYPE,
          TASKS,
          OVERWRITE);
}
