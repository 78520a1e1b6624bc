package io.fanout.conf.options;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.store.StoreFeatureEncoding;
import java.util.List;
import java.util.Map;

/**
 * The feature encoding options shared by {@code prepare} and {@code quantize}. A store records them
 * among its options only when they differ from f32, so an f32 store keeps the manifest and
 * fingerprint it had before encodings existed.
 */
public final class QuantizeOptions {
  private QuantizeOptions() {}

  public static final OptionDef<StoreFeatureEncoding> FEATURE_ENCODING =
      OptionDef.enumeration(
          "feature-encoding",
          StoreFeatureEncoding.F32,
          "how the store keeps feature rows: float32, half precision, per-column affine 8 or 4"
              + " bits, or product quantization",
          StoreFeatureEncoding::parse,
          StoreFeatureEncoding.values(),
          StoreFeatureEncoding::id);
  public static final OptionDef<Integer> PQ_GROUP_SIZE =
      OptionDef.integer(
          "pq-group-size",
          0,
          "pq: columns per group (one byte each); 0 = the smallest size >= 8 that compresses at"
              + " least 32x");
  public static final OptionDef<Integer> PQ_SAMPLE_ROWS =
      OptionDef.integer(
          "pq-sample-rows", 8192, "pq: about this many rows, drawn by seed, train the codebooks");
  public static final OptionDef<Long> PQ_SEED =
      OptionDef.longValue("pq-seed", 0, "pq: seed of the row sample and of k-means");

  /** The encoding options, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(FEATURE_ENCODING, PQ_GROUP_SIZE, PQ_SAMPLE_ROWS, PQ_SEED);

  /** Centroids per PQ group: one byte per group. */
  public static final int PQ_CENTROIDS = 256;

  /** Drops from {@code recorded} the encoding options that do not apply (all of them for f32). */
  public static void pruneRecorded(Map<String, String> recorded, FanoutConf conf) {
    StoreFeatureEncoding enc = conf.get(FEATURE_ENCODING);
    if (enc != StoreFeatureEncoding.PQ) {
      recorded.remove(PQ_GROUP_SIZE.name());
      recorded.remove(PQ_SAMPLE_ROWS.name());
      recorded.remove(PQ_SEED.name());
    }
    if (enc == StoreFeatureEncoding.F32) {
      recorded.remove(FEATURE_ENCODING.name());
    }
  }

  /**
   * Checks the values that do not depend on the data, so a bad one fails before any work.
   *
   * @throws io.fanout.conf.FanoutConfigException naming the option
   */
  public static void check(FanoutConf conf) {
    conf.get(FEATURE_ENCODING);
    checkPq(conf);
  }

  /** {@link #check} of the pq options alone, for commands without {@code --feature-encoding}. */
  public static void checkPq(FanoutConf conf) {
    conf.get(PQ_SEED);
    int rows = conf.get(PQ_SAMPLE_ROWS);
    if (rows < PQ_CENTROIDS) {
      throw new io.fanout.conf.FanoutConfigException(
          "--pq-sample-rows must be >= " + PQ_CENTROIDS + ", got " + rows);
    }
    if (conf.get(PQ_GROUP_SIZE) < 0) {
      throw new io.fanout.conf.FanoutConfigException(
          "--pq-group-size must be >= 0 (0 = at least 32x), got " + conf.get(PQ_GROUP_SIZE));
    }
  }

  /** The PQ group size for {@code dim} columns: the option, or the default rule. */
  public static int groupSize(FanoutConf conf, int dim) {
    int g = conf.get(PQ_GROUP_SIZE);
    if (g > 0) {
      return Math.min(g, dim);
    }
    return defaultGroupSize(dim);
  }

  /** The smallest group size >= 8 whose rows are at least 32x smaller than float32. */
  public static int defaultGroupSize(int dim) {
    int g = Math.min(8, dim);
    while (g < dim && 4L * dim < 32L * ((dim + g - 1) / g)) {
      g++;
    }
    return g;
  }
}
