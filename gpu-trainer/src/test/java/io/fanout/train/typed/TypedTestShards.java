package io.fanout.train.typed;

import io.fanout.graph.FeatureTable;
import io.fanout.graph.TypedGraph;
import io.fanout.sample.TypedFanouts;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardManifest;
import io.fanout.shard.ShardPartWriter;
import io.fanout.shard.ShardPlan;
import io.fanout.shard.ShardSchema;
import io.fanout.shard.TypedFeatureRows;
import io.fanout.shard.TypedShardPartWriter;
import io.fanout.store.StoreLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The typed trainer tests' one writer of typed shards, without Spark and as {@code sample} lays
 * them out: seeds of type 0 in batches of 2 sampled with fanouts {@code cites=3,2;*=2,2} and seed
 * 9, the manifest recording the batch size and, for inline rows in a stored encoding, each featured
 * type's parameters' CRC32C, as the sample job does.
 */
final class TypedTestShards {
  private TypedTestShards() {}

  /** The fanouts the shards are sampled with, per relation of {@code g}'s schema. */
  static int[][] fanouts(TypedGraph g) {
    return TypedFanouts.parse("cites=3,2;*=2,2", g.schema());
  }

  /** The sampler the shards' batches come from. */
  static TypedNeighborSampler sampler(TypedGraph g) {
    return new TypedNeighborSampler(g, 0, fanouts(g), 9);
  }

  /** One epoch of the training seeds as 2 parts, with the inline rows {@code enc} names. */
  static Path write(TypedGraph g, Path out, FeatureEncoding enc) throws Exception {
    return write(g, out, StoreLayout.SPLIT_TRAIN, 1, 2, enc);
  }

  /** Validation shards: one epoch of the val seeds as one part, node ids only. */
  static Path val(TypedGraph g, Path out) throws Exception {
    return write(g, out, StoreLayout.SPLIT_VAL, 1, 1, FeatureEncoding.NONE);
  }

  /**
   * {@code epochs} epochs of the seeds of {@code split}, each as {@code parts} parts of (nearly)
   * equal batch counts, at {@code out}; with inline rows of {@code g}'s featured types in {@code
   * enc} ({@link FeatureEncoding#NONE}: node ids only).
   */
  static Path write(TypedGraph g, Path out, byte split, int epochs, int parts, FeatureEncoding enc)
      throws Exception {
    int[][] fanouts = fanouts(g);
    TypedNeighborSampler sampler = sampler(g);
    TypedNeighborSampler.Worker w = sampler.newWorker();
    int batches = sampler.order(split, 0).length / 2;
    FeatureTable[] tables = new FeatureTable[g.schema().numTypes()];
    List<String> crcs = new ArrayList<>();
    for (int t = 0; t < tables.length; t++) {
      tables[t] = g.schema().type(t).featureDim() > 0 ? g.features(t) : null;
      crcs.add(tables[t] == null ? null : g.featureParamsCrc32c(t));
    }
    ShardManifest m = new ShardManifest();
    m.dataDir = "v-0001";
    m.epochs = epochs;
    m.partsPerEpoch = parts;
    m.batchesPerEpoch = batches;
    m.features = enc.id();
    m.options = Map.of("batch-size", "2");
    m.typed = ShardManifest.Typed.of(g.schema(), sampler.seedType(), fanouts);
    m.typed.featureDims = enc == FeatureEncoding.NONE ? null : TypedFeatureRows.dims(tables);
    m.typed.featureParamsCrc32c = enc.stored() ? crcs : null;
    Path data = out.resolve(m.dataDir);
    for (int e = 0; e < epochs; e++) {
      int[] order = sampler.order(split, e);
      for (int p = 0; p < parts; p++) {
        List<TypedMiniBatch> list = new ArrayList<>();
        for (int b = p * batches / parts; b < (p + 1) * batches / parts; b++) {
          list.add(w.sample(e, b, order, 2 * b, 2));
        }
        Path f = data.resolve(ShardPlan.partPath(e, p));
        Files.createDirectories(f.getParent());
        ShardPartWriter.Written written =
            TypedShardPartWriter.write(
                f,
                list.iterator(),
                enc == FeatureEncoding.NONE ? null : tables,
                enc,
                CompressionCodecName.ZSTD,
                Map.of(ShardSchema.FEATURES_KEY, enc.id()));
        ShardManifest.Part part = new ShardManifest.Part();
        part.epoch = e;
        part.part = p;
        part.path = ShardPlan.partPath(e, p);
        part.bytes = written.bytes();
        part.crc32c = written.crc32c();
        m.files.add(part);
      }
    }
    Files.writeString(out.resolve(ShardManifest.FILE), m.toJson() + "\n");
    return out;
  }
}
