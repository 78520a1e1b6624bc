package io.fanout.train.typed;

import io.fanout.graph.TypedGraph;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.shard.ShardManifest;
import io.fanout.shard.ShardPartWriter;
import io.fanout.shard.ShardPlan;
import io.fanout.shard.ShardSchema;
import io.fanout.shard.TypedShardPartWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Writes typed shards of given batches without Spark, as {@code sample} lays them out (one part per
 * epoch), with the manifest fields {@code train} checks: the seed type, link relation and reverses
 * (null: node batches), the split and the store's fingerprint.
 */
final class TypedLinkShardFixtures {
  private TypedLinkShardFixtures() {}

  /** The manifest fields of a shard set: what it was sampled from and as what. */
  record Kind(
      int seedType,
      int[][] fanouts,
      String linkRelation,
      List<String> linkReverses,
      String split,
      String storeFingerprint) {}

  static Path write(Path out, TypedGraph g, TypedEpochs epochs, int numEpochs, Kind kind)
      throws Exception {
    Path data = out.resolve("v-0001");
    ShardManifest m = new ShardManifest();
    m.dataDir = "v-0001";
    m.epochs = numEpochs;
    m.partsPerEpoch = 1;
    m.batchesPerEpoch = epochs.batches(0);
    m.split = kind.split();
    m.storeFingerprint = kind.storeFingerprint();
    m.options = Map.of("batch-size", "64");
    m.typed = ShardManifest.Typed.of(g.schema(), kind.seedType(), kind.fanouts());
    if (kind.linkRelation() != null) {
      m.typed.multiLabel = false;
      m.typed.linkRelation = kind.linkRelation();
      m.typed.linkReverses = new ArrayList<>(kind.linkReverses());
    }
    for (int e = 0; e < numEpochs; e++) {
      Iterator<TypedMiniBatch> batches = epochs.epoch(e);
      Path f = data.resolve(ShardPlan.partPath(e, 0));
      Files.createDirectories(f.getParent());
      ShardPartWriter.Written written =
          TypedShardPartWriter.write(
              f,
              batches,
              CompressionCodecName.ZSTD,
              kind.linkRelation() == null ? Map.of() : Map.of(ShardSchema.TASK_KEY, "link"));
      ShardManifest.Part part = new ShardManifest.Part();
      part.epoch = e;
      part.part = 0;
      part.path = ShardPlan.partPath(e, 0);
      part.bytes = written.bytes();
      part.crc32c = written.crc32c();
      m.files.add(part);
    }
    Files.writeString(out.resolve(ShardManifest.FILE), m.toJson() + "\n");
    return out;
  }
}
