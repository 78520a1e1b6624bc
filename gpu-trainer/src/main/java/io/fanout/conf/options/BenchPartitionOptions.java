package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import java.util.List;

/** The options of {@code bin/fanout bench-partition}. */
public final class BenchPartitionOptions {
  private BenchPartitionOptions() {}

  public static final OptionDef<String> DATASET =
      SharedOptions.DATASET.withDefault(
          "",
          "folder with vertices.parquet (column id) and edges.parquet (src, dst), or a typed"
              + " dataset folder with a schema.json (then only --shuffle-parts runs, on typed"
              + " stores)");
  public static final OptionDef<String> PARTS =
      OptionDef.string("parts", "2,4,8,16", "comma-separated part counts to partition into");
  public static final OptionDef<String> SHUFFLE_PARTS =
      OptionDef.string(
          "shuffle-parts",
          "",
          "with --dataset: part counts at which to also compare the shuffle bytes per epoch of"
              + " partitioned sampling on hash and multilevel stores (empty: none)");

  public static final OptionDef<String> WORK_DIR =
      SharedOptions.WORK_DIR.withDefault(
          "target/bench-partition", "folder for the METIS-format graph file");

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          DATASET,
          PARTS,
          PrepareOptions.PARTITION_SEED,
          PrepareOptions.PARTITION_COARSE_VERTICES,
          SHUFFLE_PARTS,
          WORK_DIR);
}
