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
 * Writes typed shards without Spark, as {@code sample} lays them out: one epoch of the training
 * seeds of type 0 in batches of 2 (fanouts {@code cites=3,2;*=2,2}, seed 9), as 2 part files, with
 * the inline rows {@code enc} names (a stored encoding records each featured type's parameters'
 * CRC32C, as the sample job does).
 */
final class TypedTestShards {
  private TypedTestShards() {}

  static Path write(TypedGraph g, Path out, FeatureEncoding enc) throws Exception {
    int[][] fanouts = TypedFanouts.parse("cites=3,2;*=2,2", g.schema());
    TypedNeighborSampler sampler = new TypedNeighborSampler(g, 0, fanouts, 9);
    Path data = out.resolve("v-0001");
    TypedNeighborSampler.Worker w = sampler.newWorker();
    int[] order = sampler.order(StoreLayout.SPLIT_TRAIN, 0);
    int batches = order.length / 2;
    FeatureTable[] tables = new FeatureTable[g.schema().numTypes()];
    List<String> crcs = new ArrayList<>();
    for (int t = 0; t < tables.length; t++) {
      tables[t] = g.schema().type(t).featureDim() > 0 ? g.features(t) : null;
      crcs.add(tables[t] == null ? null : g.featureParamsCrc32c(t));
    }
    ShardManifest m = new ShardManifest();
    m.dataDir = "v-0001";
    m.epochs = 1;
    m.partsPerEpoch = 2;
    m.batchesPerEpoch = batches;
    m.features = enc.id();
    m.options = Map.of("batch-size", "2");
    m.typed = ShardManifest.Typed.of(g.schema(), 0, fanouts);
    m.typed.featureDims = enc == FeatureEncoding.NONE ? null : TypedFeatureRows.dims(tables);
    m.typed.featureParamsCrc32c = enc.stored() ? crcs : null;
    for (int p = 0; p < 2; p++) {
      List<TypedMiniBatch> list = new ArrayList<>();
      for (int b = p * batches / 2; b < (p + 1) * batches / 2; b++) {
        list.add(w.sample(0, b, order, 2 * b, 2));
      }
      Path f = data.resolve(ShardPlan.partPath(0, p));
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
      part.epoch = 0;
      part.part = p;
      part.path = ShardPlan.partPath(0, p);
      part.bytes = written.bytes();
      part.crc32c = written.crc32c();
      m.files.add(part);
    }
    Files.writeString(out.resolve(ShardManifest.FILE), m.toJson() + "\n");
    return out;
  }
}
