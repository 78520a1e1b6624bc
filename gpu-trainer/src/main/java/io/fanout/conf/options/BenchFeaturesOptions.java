package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.store.StoreFeatureEncoding;
import java.util.List;

/** The options of {@code bin/fanout bench-features}. */
public final class BenchFeaturesOptions {
  private BenchFeaturesOptions() {}

  public static final OptionDef<Long> NUM_VERTICES =
      SharedOptions.NUM_VERTICES.withDefault("500000", "vertices of the generated graph");
  public static final OptionDef<Long> NUM_EDGES =
      SharedOptions.NUM_EDGES.withDefault("10000000", "edges of the generated graph (about)");
  public static final OptionDef<Double> SKEW =
      OptionDef.doubleValue(
          "skew",
          2.0,
          "in-neighbor skew K of the generated graph: neighbor ids drawn as n x r^K, so the 5%"
              + " most-named vertices hold about 0.05^(1/K) of the neighbor entries (2: 22%; 1:"
              + " uniform); inspect reports a store's share");
  public static final OptionDef<Integer> FEATURE_DIM =
      SharedOptions.FEATURE_DIM.withDefault("100", "feature dim");
  public static final OptionDef<Integer> HIDDEN =
      SharedOptions.HIDDEN.withDefault("64", "hidden width");
  public static final OptionDef<String> FANOUTS =
      SharedOptions.FANOUTS.withDefault("10,5", "fanouts (one per layer)");
  public static final OptionDef<Integer> BATCH_SIZE =
      SharedOptions.BATCH_SIZE.withDefault("1024", "seeds per batch");
  public static final OptionDef<Integer> BATCHES =
      SharedOptions.BATCHES.withDefault("100", "batches of the epoch (distinct shuffled seeds)");
  public static final OptionDef<Integer> BATCHES_PER_SHARD =
      SharedOptions.BATCHES_PER_SHARD.withDefault("8", "batches per shard part");
  public static final OptionDef<Integer> LOADER_THREADS =
      SharedOptions.LOADER_THREADS.withDefault(
          "2", "background threads reading and decoding shards");
  public static final OptionDef<Integer> PREFETCH =
      SharedOptions.PREFETCH.withDefault("2", "batches kept ready");
  public static final OptionDef<String> CACHE_FRACTIONS =
      OptionDef.string(
          "cache-fractions",
          "0.01,0.05,0.2",
          "cache sizes for belady and lru, as fractions of the feature bytes on disk");
  public static final OptionDef<String> WINDOW =
      OptionDef.string(
          "window",
          "32",
          "batches belady plans ahead at a time, as train --feature-cache-window (a number, or"
              + " auto)");

  /** The encodings bench-features generates a store in. */
  private static final StoreFeatureEncoding[] ENCODINGS = {
    StoreFeatureEncoding.F32,
    StoreFeatureEncoding.INT8,
    StoreFeatureEncoding.INT4,
    StoreFeatureEncoding.PQ
  };

  public static final OptionDef<StoreFeatureEncoding> ENCODING =
      OptionDef.enumeration(
          "encoding",
          StoreFeatureEncoding.F32,
          "the store's feature encoding; int8/int4/pq rows are generated and encoded one at a time"
              + " (no float32 copy in memory); pq codebooks by Spark MLlib's KMeans as in quantize",
          raw -> StoreFeatureEncoding.parse(raw, ENCODINGS),
          ENCODINGS,
          StoreFeatureEncoding::id);
  public static final OptionDef<Boolean> DIRECT_IO =
      OptionDef.bool(
          "direct-io",
          false,
          "read the feature files with O_DIRECT, bypassing the page cache (every read goes to"
              + " the device)");
  public static final OptionDef<String> RUNS =
      OptionDef.string(
          "runs", "mapped,none,belady,lru", "which runs to make (some of mapped,none,belady,lru)");
  public static final OptionDef<Boolean> WARMUP_EPOCH =
      OptionDef.bool("warmup-epoch", true, "train one untimed memory-mapped epoch first");
  public static final OptionDef<String> WORK_DIR =
      SharedOptions.WORK_DIR.withDefault(
          "",
          "folder for the store and shards (default: a temporary one); a folder a kept run wrote"
              + " with the same settings is reused");
  public static final OptionDef<Boolean> KEEP =
      SharedOptions.KEEP.withDefault(
          "false", "leave the store and shards in --work-dir for a later run");
  public static final OptionDef<Boolean> WRITE_ONLY =
      OptionDef.bool(
          "write-only",
          false,
          "write (or find) the store and shards in --work-dir, keep them, and train nothing");

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          NUM_VERTICES,
          NUM_EDGES,
          SKEW,
          FEATURE_DIM,
          HIDDEN,
          FANOUTS,
          BATCH_SIZE,
          BATCHES,
          BATCHES_PER_SHARD,
          LOADER_THREADS,
          PREFETCH,
          CACHE_FRACTIONS,
          WINDOW,
          ENCODING,
          DIRECT_IO,
          RUNS,
          WARMUP_EPOCH,
          WORK_DIR,
          KEEP,
          WRITE_ONLY,
          QuantizeOptions.PQ_GROUP_SIZE,
          QuantizeOptions.PQ_SAMPLE_ROWS,
          QuantizeOptions.PQ_SEED);
}
