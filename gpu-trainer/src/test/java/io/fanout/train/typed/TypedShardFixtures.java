package io.fanout.train.typed;

import io.fanout.graph.FeatureTable;
import io.fanout.graph.TypedGraph;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardManifest;
import io.fanout.shard.ShardPartWriter;
import io.fanout.shard.ShardPlan;
import io.fanout.shard.ShardSchema;
import io.fanout.shard.TypedFeatureRows;
import io.fanout.shard.TypedShardPartWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/** Writes typed shards of a sampler's batches without Spark, for the typed trainer's tests. */
final class TypedShardFixtures {
  private TypedShardFixtures() {}

  /**
   * {@code epochs} epochs of the seed type's vertices of {@code split} in batches of 2, in {@code
   * parts} parts each, at {@code out}; with inline rows of {@code g}'s featured types in {@code
   * enc} ({@link FeatureEncoding#NONE}: node ids only).
   */
  static Path write(
      Path out,
      TypedGraph g,
      TypedNeighborSampler sampler,
      int seedType,
      int[][] fanouts,
      byte split,
      int epochs,
      int parts,
      FeatureEncoding enc)
      throws Exception {
    Path data = out.resolve("v-0001");
    TypedNeighborSampler.Worker w = sampler.newWorker();
    int batchesPerEpoch = sampler.order(split, 0).length / 2;
    int perPart = batchesPerEpoch / parts;
    FeatureTable[] tables = new FeatureTable[g.schema().numTypes()];
    for (int t = 0; t < tables.length; t++) {
      tables[t] = g.schema().type(t).featureDim() > 0 ? g.features(t) : null;
    }
    ShardManifest m = new ShardManifest();
    m.dataDir = "v-0001";
    m.epochs = epochs;
    m.partsPerEpoch = parts;
    m.batchesPerEpoch = batchesPerEpoch;
    m.typed = ShardManifest.Typed.of(g.schema(), seedType, fanouts);
    if (enc != FeatureEncoding.NONE) {
      m.features = enc.id();
      m.typed.featureDims = TypedFeatureRows.dims(tables);
    }
    for (int e = 0; e < epochs; e++) {
      int[] order = sampler.order(split, e);
      for (int p = 0; p < parts; p++) {
        List<TypedMiniBatch> batches = new ArrayList<>();
        for (int b = perPart * p; b < perPart * (p + 1); b++) {
          batches.add(w.sample(e, b, order, 2 * b, 2));
        }
        Path f = data.resolve(ShardPlan.partPath(e, p));
        Files.createDirectories(f.getParent());
        ShardPartWriter.Written written =
            enc == FeatureEncoding.NONE
                ? TypedShardPartWriter.write(
                    f, batches.iterator(), CompressionCodecName.ZSTD, Map.of("fanout.test", "1"))
                : TypedShardPartWriter.write(
                    f,
                    batches.iterator(),
                    tables,
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
