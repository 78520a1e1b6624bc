package io.fanout.spark.sample;

import io.fanout.sample.Fanouts;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardPlan;
import io.fanout.shard.ShardSchema;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/** A resolved, validated {@code sample} request, shipped to every task. */
final class SampleSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  final String store;
  final String storeFingerprint;
  final int splitCode;
  final String split;
  final int batchSize;
  final int[] fanouts;
  final int epochs;
  final long seed;

  /** Sampling proportional to the store's edge weights ({@code --weighted}). */
  final boolean weighted;

  final FeatureEncoding features;
  final int featureDim;
  final String compression;
  final int threads;
  final ShardPlan plan;

  /** The link-prediction part of the request ({@code --task link}); null for node batches. */
  LinkSpec link;

  /**
   * Bytes of one inline row: {@code featureDim * features.bytesPerValue()}, or, when the shards
   * copy the store's encoded rows ({@link FeatureEncoding#stored}), the store's row bytes.
   */
  int featureRowBytes;

  /** CRC32C of the store's feature parameters the inline rows need; null unless stored rows. */
  String featureParamsCrc32c;

  /** Each batch's seeds from one store partition ({@code --batch-by-partition}). */
  boolean batchByPartition;

  /** {@code firsts[p]}: the first dense id of store partition p; {@code firsts[P]}: vertices. */
  long[] firsts;

  /** Class name of the {@link io.fanout.shard.PartWriteObserver} to call; null for none. */
  final String partObserver;

  SampleSpec(
      String store,
      String storeFingerprint,
      int splitCode,
      String split,
      int batchSize,
      int[] fanouts,
      int epochs,
      long seed,
      boolean weighted,
      FeatureEncoding features,
      int featureDim,
      String compression,
      int threads,
      ShardPlan plan,
      String partObserver) {
    this.store = store;
    this.storeFingerprint = storeFingerprint;
    this.splitCode = splitCode;
    this.split = split;
    this.batchSize = batchSize;
    this.fanouts = fanouts;
    this.epochs = epochs;
    this.seed = seed;
    this.weighted = weighted;
    this.features = features;
    this.featureDim = featureDim;
    this.compression = compression;
    this.threads = threads;
    this.plan = plan;
    this.partObserver = partObserver;
  }

  CompressionCodecName codec() {
    return CompressionCodecName.valueOf(compression.toUpperCase(java.util.Locale.ROOT));
  }

  /** Key-value metadata of a part file: a function of the request and the range only. */
  Map<String, String> metadata(int epoch, int part) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("fanout.shard.version", Integer.toString(ShardSchema.VERSION));
    m.put("fanout.store_fingerprint", storeFingerprint);
    m.put("fanout.split", split);
    m.put("fanout.fanouts", Fanouts.format(fanouts));
    m.put("fanout.seed", Long.toString(seed));
    if (weighted) {
      m.put("fanout.weighted", "true");
    }
    if (link != null) {
      m.put(ShardSchema.TASK_KEY, "link");
      m.put("fanout.negatives", link.negatives());
      m.put("fanout.num_negatives", Integer.toString(link.perPositive()));
    }
    if (batchByPartition) {
      m.put("fanout.batch_by_partition", "true");
    }
    m.put("fanout.epoch", Integer.toString(epoch));
    m.put("fanout.part", Integer.toString(part));
    m.put("fanout.first_batch", Integer.toString(plan.firstBatch(part)));
    m.put("fanout.end_batch", Integer.toString(plan.endBatch(part)));
    m.put("fanout.features", features.id());
    m.put("fanout.feature_dim", Integer.toString(featureDim));
    if (featureParamsCrc32c != null) {
      m.put("fanout.feature_params_crc32c", featureParamsCrc32c);
    }
    return m;
  }
}
