package io.fanout.spark.prepare;

import java.util.Locale;
import org.apache.spark.SparkConf;

/**
 * How Spark compresses shuffle files ({@code spark.shuffle.compress}, {@code
 * spark.io.compression.codec}), as the plan's shuffle estimate needs it: the ratios of {@link
 * PreparePlanner} were fitted with LZ4, Spark's default, and other codecs scale them by a factor of
 * their own.
 *
 * @param name the codec's short name ({@code lz4}, {@code zstd}, ...), or {@code none} when shuffle
 *     files are not compressed
 * @param factor shuffled bytes over what LZ4 writes for the same rows; 1 where not measured
 */
record ShuffleCodec(String name, double factor) {
  /**
   * ZStandard's shuffle bytes over LZ4's, for prepare's rows (fitted: {@code prepare} of a
   * generated 1 M / 10 M graph wrote 0.61x LZ4's peak shuffle bytes, and {@code
   * PrepareDryRunZstdShuffleTest}'s runs agree: 1.10x and 1.29x).
   */
  static final double ZSTD_FACTOR = 0.6;

  /** Spark's default: LZ4, the codec the fitted ratios describe. */
  static final ShuffleCodec LZ4 = new ShuffleCodec("lz4", 1.0);

  /** Shuffle files written uncompressed ({@code spark.shuffle.compress=false}). */
  static final ShuffleCodec NONE = new ShuffleCodec("none", Double.NaN);

  /** The codec {@code conf} gives shuffle files. */
  static ShuffleCodec of(SparkConf conf) {
    if (!conf.getBoolean("spark.shuffle.compress", true)) {
      return NONE;
    }
    String codec = conf.get("spark.io.compression.codec", "lz4").toLowerCase(Locale.ROOT);
    if (codec.equals("zstd") || codec.endsWith(".zstdcompressioncodec")) {
      return new ShuffleCodec("zstd", ZSTD_FACTOR);
    }
    if (codec.equals("lz4") || codec.endsWith(".lz4compressioncodec")) {
      return LZ4;
    }
    return new ShuffleCodec(codec, 1.0);
  }

  /** Whether shuffle files are compressed at all. */
  boolean compressed() {
    return !name.equals(NONE.name);
  }

  /** Shuffled over raw bytes of fixed-width row bytes whose LZ4 ratio is {@code lz4Ratio}. */
  double rowRatio(double lz4Ratio) {
    return compressed() ? Math.min(1, lz4Ratio * factor) : 1;
  }

  /**
   * As {@link #rowRatio}, for rows whose ratio under this codec was not measured (the endpoint
   * joins' shuffles): never below LZ4's, so the plan does not shrink a term it cannot vouch for (at
   * 1 billion edges the zstd plan with the factor on the joins too was 0.73x of the disk the run
   * took).
   */
  double unmeasuredRowRatio(double lz4Ratio) {
    return compressed() ? Math.min(1, lz4Ratio * Math.max(1, factor)) : 1;
  }

  /**
   * Shuffled over raw bytes of feature values whose Parquet bytes are {@code parquetRatio} of their
   * raw size (see {@link PreparePlanner#FEATURE_SHUFFLE_FACTOR}).
   */
  double featureRatio(double parquetRatio) {
    return compressed()
        ? Math.min(1, parquetRatio * PreparePlanner.FEATURE_SHUFFLE_FACTOR * factor)
        : 1;
  }

  /**
   * The plan's note on this codec, or null for LZ4 (the fit) and codecs measured like it.
   *
   * @param joins whether the plan shuffles edges for the endpoint joins, which keep LZ4's ratio
   */
  String note(boolean joins) {
    if (!compressed()) {
      return "shuffle files are not compressed (spark.shuffle.compress=false): counted at their raw"
          + " width";
    }
    if (name.equals("zstd")) {
      return "shuffle sizes for zstd (spark.io.compression.codec): LZ4's fit times "
          + ZSTD_FACTOR
          + (joins ? " where measured, LZ4's for the endpoint joins" : "");
    }
    if (!name.equals(LZ4.name)) {
      return "shuffle sizes for "
          + name
          + " (spark.io.compression.codec) are estimated as for lz4, not measured";
    }
    return null;
  }
}
