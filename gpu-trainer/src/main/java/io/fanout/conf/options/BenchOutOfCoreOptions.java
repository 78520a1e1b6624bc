package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.train.TrainFeatureCache;
import java.util.List;

/** The options of {@code bin/fanout bench-out-of-core}. */
public final class BenchOutOfCoreOptions {
  private BenchOutOfCoreOptions() {}

  public static final OptionDef<Long> NUM_VERTICES =
      SharedOptions.NUM_VERTICES.withDefault("9000000", "vertices of the generated graph");
  public static final OptionDef<Long> NUM_EDGES =
      SharedOptions.NUM_EDGES.withDefault("45000000", "edges of the generated graph (about)");
  public static final OptionDef<Integer> FEATURE_DIM =
      SharedOptions.FEATURE_DIM.withDefault("128", "f32 features a row (4 bytes each on disk)");
  public static final OptionDef<String> FANOUTS =
      SharedOptions.FANOUTS.withDefault("10,5", "neighbors sampled per layer");
  public static final OptionDef<Integer> BATCH_SIZE =
      SharedOptions.BATCH_SIZE.withDefault("1024", "seeds a batch");
  public static final OptionDef<Integer> BATCHES =
      SharedOptions.BATCHES.withDefault("50", "batches sampled once and served through each cache");
  public static final OptionDef<Integer> LOADER_THREADS =
      SharedOptions.LOADER_THREADS.withDefault("2", "threads sampling the batches");
  public static final OptionDef<Double> CACHE_FRACTION = BenchCacheOptions.CACHE_FRACTION;
  public static final OptionDef<Integer> IO_THREADS =
      BenchCacheOptions.IO_THREADS.withDefault(
          String.valueOf(TrainFeatureCache.IO_THREADS),
          "threads reading misses, and reading at once in the disk's own measurements");
  public static final OptionDef<String> LAYOUTS =
      OptionDef.string(
          "layouts",
          "identity,first-use,first-use-prior",
          "row layouts of the feature files: identity (rows at their ids), neighborhood and"
              + " seed-groups (the layouts prepare and quantize --feature-layout record in a store,"
              + " computed from the graph and the training vertices the epochs draw from),"
              + " first-use (rows in the order the served batches first touch them),"
              + " first-use-prior (in the order another epoch's batches do)");
  public static final OptionDef<Double> LOCALITY =
      OptionDef.doubleValue(
          "locality",
          0.0,
          "share of each vertex's in-neighbors drawn from its own community (hidden in the ids by"
              + " a fixed bijection); 0: the bench-train graph");
  public static final OptionDef<Integer> COMMUNITY_SIZE =
      OptionDef.integer("community-size", 128, "vertices a community (with --locality)");
  public static final OptionDef<String> COALESCING =
      OptionDef.string(
          "coalescing",
          "row,merged",
          "how the cache's reads are issued: row (one O_DIRECT read per row), merged (rows up to"
              + " 32 KiB apart share a read of up to 256 KiB), near (rows up to 4 KiB apart do)");
  public static final OptionDef<Double> PROBE_SECONDS =
      OptionDef.doubleValue(
          "probe-seconds", 5.0, "seconds of each random-read measurement of the disk itself");
  public static final OptionDef<String> WORK_DIR =
      SharedOptions.WORK_DIR.withDefault(
          "", "folder for the feature files, on the disk measured; empty: a temporary folder");

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          NUM_VERTICES,
          NUM_EDGES,
          FEATURE_DIM,
          LOCALITY,
          COMMUNITY_SIZE,
          FANOUTS,
          BATCH_SIZE,
          BATCHES,
          LOADER_THREADS,
          CACHE_FRACTION,
          IO_THREADS,
          LAYOUTS,
          COALESCING,
          PROBE_SECONDS,
          WORK_DIR);
}
