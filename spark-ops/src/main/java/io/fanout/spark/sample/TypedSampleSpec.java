package io.fanout.spark.sample;

import io.fanout.graph.FeatureTable;
import io.fanout.graph.TypedGraph;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardPlan;
import io.fanout.shard.ShardSchema;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/** A resolved, validated {@code sample} request on a typed store, shipped to every task. */
final class TypedSampleSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  final String store;
  final String storeFingerprint;
  final String opener;
  final int seedType;
  final String seedTypeName;
  final int splitCode;
  final String split;
  final int batchSize;

  /** {@code fanouts[r][h-1]}. */
  final int[][] fanouts;

  /** The canonical text of {@link #fanouts} ({@code rel=10,5;...}). */
  final String fanoutsText;

  final int epochs;
  final long seed;
  final String compression;
  final int threads;
  final ShardPlan plan;
  final String partObserver;

  /** {@code --task link}: the link relation and negatives; null for node classification. */
  TypedLinkRequest link;

  /**
   * {@code --weighted}: relations with edge weights draw in proportion to them, the others
   * uniformly.
   */
  boolean weighted;

  /**
   * {@code --batch-by-partition}: each batch's seeds come from one store partition of the seed type
   * ({@link io.fanout.sample.PartitionBatches}).
   */
  boolean batchByPartition;

  /** {@code --features}: how each batch inlines its featured types' rows ({@code none}: not). */
  FeatureEncoding features = FeatureEncoding.NONE;

  /** Per type the width of its inline rows (0: none); null without inline features. */
  int[] featureDims;

  /**
   * {@code --features int8|int4|pq}: per type the CRC32C of the parameters its stored rows were
   * encoded with (null for a featureless type); null otherwise.
   */
  java.util.List<String> featureParamsCrc32c;

  TypedSampleSpec(
      String store,
      String storeFingerprint,
      String opener,
      int seedType,
      String seedTypeName,
      int splitCode,
      String split,
      int batchSize,
      int[][] fanouts,
      String fanoutsText,
      int epochs,
      long seed,
      String compression,
      int threads,
      ShardPlan plan,
      String partObserver) {
    this.store = store;
    this.storeFingerprint = storeFingerprint;
    this.opener = opener;
    this.seedType = seedType;
    this.seedTypeName = seedTypeName;
    this.splitCode = splitCode;
    this.split = split;
    this.batchSize = batchSize;
    this.fanouts = fanouts;
    this.fanoutsText = fanoutsText;
    this.epochs = epochs;
    this.seed = seed;
    this.compression = compression;
    this.threads = threads;
    this.plan = plan;
    this.partObserver = partObserver;
  }

  /**
   * Per type the table a batch's inline rows are gathered from ({@link #featureDims}), null for the
   * others; null without inline features.
   */
  FeatureTable[] featureTables(TypedGraph g) {
    if (featureDims == null) {
      return null;
    }
    FeatureTable[] tables = new FeatureTable[featureDims.length];
    for (int t = 0; t < tables.length; t++) {
      if (featureDims[t] > 0) {
        tables[t] = g.features(t);
      }
    }
    return tables;
  }

  CompressionCodecName codec() {
    return CompressionCodecName.valueOf(compression.toUpperCase(java.util.Locale.ROOT));
  }

  /** Key-value metadata of a part file: a function of the request and the range only. */
  Map<String, String> metadata(int epoch, int part) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("fanout.shard.version", Integer.toString(ShardSchema.VERSION));
    m.put(ShardSchema.KIND_KEY, ShardSchema.TYPED);
    m.put("fanout.store_fingerprint", storeFingerprint);
    m.put("fanout.seed_type", seedTypeName);
    m.put("fanout.split", split);
    m.put("fanout.fanouts", fanoutsText);
    m.put("fanout.seed", Long.toString(seed));
    m.put("fanout.epoch", Integer.toString(epoch));
    m.put("fanout.part", Integer.toString(part));
    m.put("fanout.first_batch", Integer.toString(plan.firstBatch(part)));
    m.put("fanout.end_batch", Integer.toString(plan.endBatch(part)));
    m.put(ShardSchema.FEATURES_KEY, features.id());
    m.put("fanout.feature_dim", "0");
    if (featureDims != null) { // absent without inline features, so those parts keep their bytes
      m.put("fanout.feature_dims", java.util.Arrays.toString(featureDims));
    }
    if (featureParamsCrc32c != null) { // stored rows only, so float parts keep their bytes
      m.put("fanout.feature_params_crc32c", featureParamsCrc32c.toString());
    }
    if (weighted) { // absent when false, so uniform parts keep their bytes
      m.put("fanout.weighted", "true");
    }
    if (batchByPartition) { // absent when false, as weighted
      m.put("fanout.batch_by_partition", "true");
    }
    if (link != null) {
      m.put(ShardSchema.TASK_KEY, "link");
      m.put("fanout.link_relation", link.relationName());
      if (link.heldOut() == null) {
        m.put("fanout.negatives", link.negatives().negatives());
        m.put("fanout.num_negatives", Integer.toString(link.negatives().perPositive()));
      } else {
        m.put("fanout.negatives", "stored");
      }
    }
    return m;
  }
}
