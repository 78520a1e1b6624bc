package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.train.TrainFeatureCache;
import java.util.List;

/** The options of {@code bin/fanout bench-cache}. */
public final class BenchCacheOptions {
  private BenchCacheOptions() {}

  // The graph of bench-train (products size by default), sampled the same way.
  public static final OptionDef<Long> NUM_VERTICES = BenchTrainOptions.NUM_VERTICES;
  public static final OptionDef<Long> NUM_EDGES = BenchTrainOptions.NUM_EDGES;
  public static final OptionDef<Integer> FEATURE_DIM = BenchTrainOptions.FEATURE_DIM;
  public static final OptionDef<String> FANOUTS = BenchTrainOptions.FANOUTS;
  public static final OptionDef<Integer> BATCH_SIZE = BenchTrainOptions.BATCH_SIZE;
  public static final OptionDef<Integer> BATCHES =
      SharedOptions.BATCHES.withDefault(
          "40", "batches sampled once and replayed through each cache");
  public static final OptionDef<Integer> LOADER_THREADS =
      SharedOptions.LOADER_THREADS.withDefault("2", "threads sampling the batches");
  public static final OptionDef<Double> CACHE_FRACTION =
      OptionDef.doubleValue("cache-fraction", 0.05, "cache size, a fraction of the feature bytes");
  public static final OptionDef<String> POLICIES =
      OptionDef.string("policies", "belady,lru", "cache policies to replay (belady,lru,none)");
  public static final OptionDef<CacheAccess> ACCESS =
      OptionDef.enumeration(
          "access",
          CacheAccess.RESOLVE,
          "resolve: make each batch's rows present in the cache's pages (zero-copy readers);"
              + " gather: decode them into a buffer",
          CacheAccess::parse,
          CacheAccess.values());
  public static final OptionDef<Integer> IO_THREADS =
      OptionDef.integer("io-threads", TrainFeatureCache.IO_THREADS, "threads reading misses");
  public static final OptionDef<Integer> ROUNDS =
      OptionDef.integer("rounds", 2, "replays of every policy (the fastest is reported)");

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          NUM_VERTICES,
          NUM_EDGES,
          FEATURE_DIM,
          FANOUTS,
          BATCH_SIZE,
          BATCHES,
          LOADER_THREADS,
          CACHE_FRACTION,
          POLICIES,
          ACCESS,
          IO_THREADS,
          ROUNDS);
}
