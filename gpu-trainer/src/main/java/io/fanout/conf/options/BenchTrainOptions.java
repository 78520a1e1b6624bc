package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.train.TrainFeatureCache;
import java.util.List;

/** The options of {@code bin/fanout bench-train}. */
public final class BenchTrainOptions {
  private BenchTrainOptions() {}

  public static final OptionDef<Long> NUM_VERTICES =
      SharedOptions.NUM_VERTICES.withDefault("2500000", "vertices of the generated graph");
  public static final OptionDef<Long> NUM_EDGES =
      SharedOptions.NUM_EDGES.withDefault("60000000", "edges of the generated graph (about)");
  public static final OptionDef<Integer> FEATURE_DIM =
      SharedOptions.FEATURE_DIM.withDefault("100", "feature dim");
  public static final OptionDef<Integer> HIDDEN =
      SharedOptions.HIDDEN.withDefault("256", "hidden width");
  public static final OptionDef<String> FANOUTS =
      SharedOptions.FANOUTS.withDefault("15,10,5", "fanouts (one per layer)");
  public static final OptionDef<Integer> BATCH_SIZE =
      SharedOptions.BATCH_SIZE.withDefault("1024", "seeds per batch");
  public static final OptionDef<Integer> BATCHES =
      SharedOptions.BATCHES.withDefault("20", "timed batches");
  public static final OptionDef<Integer> WARMUP =
      OptionDef.integer("warmup", 3, "untimed batches first");
  public static final OptionDef<Integer> LOADER_THREADS =
      SharedOptions.LOADER_THREADS.withDefault("2", "background sampling/gather threads");
  public static final OptionDef<Integer> PREFETCH =
      SharedOptions.PREFETCH.withDefault("2", "batches each loader thread keeps ready");
  public static final OptionDef<Integer> SGEMM_SIZE =
      OptionDef.integer(
          "sgemm-size",
          2048,
          "m = n = k of the square sgemm the dense layers' GFLOP/s are set against, measured in the"
              + " same run (sgemm_N_gflops)");
  public static final OptionDef<Integer> VERIFY_ROUNDS =
      OptionDef.integer(
          "verify-rounds",
          2,
          "then write the graph as a store and the batches as shards, and train this many pairs"
              + " of epochs from them, one reading the shards unchecked and one verifying them;"
              + " 0 skips");
  public static final OptionDef<Integer> BATCHES_PER_SHARD =
      SharedOptions.BATCHES_PER_SHARD.withDefault("8", "batches per shard part for verify-rounds");
  public static final OptionDef<String> EXPORT_BATCHES =
      OptionDef.string(
          "export-batches",
          "",
          "write the warmup + timed batches, their features, the model's configuration and initial"
              + " parameters as .npy files into this new directory (for bench/torch_reference.py)"
              + " instead of the throughput run");
  public static final OptionDef<TrainPeer> PEER =
      OptionDef.enumeration(
          "peer",
          TrainPeer.NONE,
          "torch: train the same model on the same exported batches with plain PyTorch"
              + " (bench/torch_reference.py), alternating with Fanout, and print the ratio",
          TrainPeer::parse,
          TrainPeer.values());
  public static final OptionDef<Integer> PEER_ROUNDS =
      OptionDef.integer("peer-rounds", 3, "alternating rounds of Fanout and the peer");
  public static final OptionDef<Double> DROPOUT =
      SharedOptions.DROPOUT.withDefault(
          String.valueOf(0.5), "dropout of the exported model (--export-batches, --peer)");
  public static final OptionDef<Double> FEATURE_CACHE_FRACTION =
      OptionDef.doubleValue(
          "feature-cache-fraction",
          0.0,
          "with --feature-access zero-copy: read the rows from a feature file through a belady"
              + " cache of this fraction of their bytes, whose pages the backend reads in place"
              + " (0: every row in memory)");
  public static final OptionDef<Integer> FEATURE_CACHE_IO_THREADS =
      OptionDef.integer(
          "feature-cache-io-threads",
          TrainFeatureCache.IO_THREADS,
          "I/O threads of the --feature-cache-fraction cache");
  public static final OptionDef<Integer> REUSE_ROUNDS =
      OptionDef.integer(
          "reuse-rounds",
          2,
          "with --reuse-hot: timed epochs of each, with and without reuse, alternating");
  public static final OptionDef<String> PEER_SCRIPT =
      OptionDef.string(
          "peer-script",
          "",
          "the peer's script; empty = bench/torch_reference.py of this checkout");

  /**
   * Spark-free entry only ({@code TrainBenchmarkMain} of the bench module): time the loader alone.
   */
  public static final OptionDef<Integer> LOADER_ONLY =
      OptionDef.integer(
          "loader-only", 0, "time this many epochs of the loader alone, training nothing; 0 = off");

  /** Spark-free entry only: shard-sized parts the loader reads with {@link #LOADER_ONLY}. */
  public static final OptionDef<Integer> BATCHES_PER_PART =
      OptionDef.integer("batches-per-part", 1, "with --loader-only: batches per part read");

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          NUM_VERTICES,
          NUM_EDGES,
          FEATURE_DIM,
          HIDDEN,
          FANOUTS,
          BATCH_SIZE,
          BATCHES,
          WARMUP,
          LOADER_THREADS,
          PREFETCH,
          SGEMM_SIZE,
          VERIFY_ROUNDS,
          BATCHES_PER_SHARD,
          EXPORT_BATCHES,
          PEER,
          PEER_ROUNDS,
          DROPOUT,
          PEER_SCRIPT,
          TrainCommandOptions.REUSE_HOT,
          TrainCommandOptions.STALENESS,
          TrainCommandOptions.HOT_BY,
          TrainCommandOptions.REUSE_REFRESH,
          TrainCommandOptions.REUSE_BACKWARD,
          TrainCommandOptions.REUSE_ROWS,
          REUSE_ROUNDS,
          TrainCommandOptions.BACKEND,
          TrainCommandOptions.PRECISION,
          TrainCommandOptions.FEATURE_ACCESS,
          FEATURE_CACHE_FRACTION,
          FEATURE_CACHE_IO_THREADS);

  /**
   * The options of the Spark-free entry {@code TrainBenchmarkMain} of the bench module: those of
   * the throughput run, the loader-only timing, and the export and peer comparison.
   */
  public static final List<OptionDef<?>> SPARK_FREE =
      List.of(
          TrainCommandOptions.BACKEND,
          NUM_VERTICES,
          NUM_EDGES,
          FEATURE_DIM,
          HIDDEN,
          FANOUTS,
          BATCH_SIZE,
          BATCHES,
          WARMUP,
          LOADER_THREADS,
          PREFETCH,
          SGEMM_SIZE,
          TrainCommandOptions.PRECISION,
          TrainCommandOptions.FEATURE_ACCESS,
          FEATURE_CACHE_FRACTION,
          FEATURE_CACHE_IO_THREADS,
          TrainCommandOptions.REUSE_HOT,
          TrainCommandOptions.STALENESS,
          TrainCommandOptions.HOT_BY,
          TrainCommandOptions.REUSE_REFRESH,
          TrainCommandOptions.REUSE_BACKWARD,
          TrainCommandOptions.REUSE_ROWS,
          REUSE_ROUNDS,
          LOADER_ONLY,
          BATCHES_PER_PART,
          EXPORT_BATCHES,
          PEER,
          PEER_ROUNDS,
          DROPOUT,
          PEER_SCRIPT);
}
