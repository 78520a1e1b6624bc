package io.fanout.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.sample.OrderedBatchStream;
import io.fanout.sample.SeedOrder;
import io.fanout.sample.TypedBatchAssert;
import io.fanout.sample.TypedFanouts;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.sample.TypedTestGraphs;
import io.fanout.store.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TypedShardsTest {
  private static final ArrayTypedGraph G = TypedTestGraphs.acmLike(400, 150, 50, 2500, 3);
  private static final Map<String, String> META = Map.of("fanout.test", "1");

  @TempDir Path dir;

  private static List<TypedMiniBatch> sample(TypedGraph g, String fanouts, int batches) {
    int[][] f = TypedFanouts.parse(fanouts, g.schema());
    TypedNeighborSampler s = new TypedNeighborSampler(g, 0, f, 9);
    int[] order = s.order(SeedOrder.ALL, 0);
    TypedNeighborSampler.Worker w = s.newWorker();
    List<TypedMiniBatch> out = new ArrayList<>();
    for (int b = 0; b < batches; b++) {
      out.add(w.sample(0, b, order, b * 24, 24));
    }
    return out;
  }

  @Test
  void rowsRoundTripThroughTheCodecAndAFile() throws Exception {
    for (TypedGraph g : new TypedGraph[] {G, TypedTestGraphs.multiLabel(G, 0)}) {
      List<TypedMiniBatch> batches = sample(g, "cites=4,2;*=3,-1", 5);
      TypedBatchShape shape = TypedBatchShape.of(g.schema(), 2);
      for (TypedMiniBatch b : batches) {
        TypedBatchAssert.assertSame(TypedBatchCodec.decode(TypedBatchCodec.encode(b), shape), b);
      }
      Path f = dir.resolve("rt-" + System.identityHashCode(g) + ".parquet");
      ShardPartWriter.Written w =
          TypedShardPartWriter.write(f, batches.iterator(), CompressionCodecName.ZSTD, META);
      assertThat(w.rows()).isEqualTo(5);
      assertThat(w.seeds()).isEqualTo(5 * 24);
      assertThat(w.edges()).isEqualTo(batches.stream().mapToLong(TypedMiniBatch::numEdges).sum());
      try (TypedShardFileReader r = new TypedShardFileReader(f)) {
        for (TypedMiniBatch b : batches) {
          assertThat(r.hasNext()).isTrue();
          TypedBatchAssert.assertSame(TypedBatchCodec.decode(r.next(), shape), b);
        }
        assertThat(r.hasNext()).isFalse();
      }
    }
  }

  /** The same batches from 1 or 3 threads, in one task or several, give the same file bytes. */
  @Test
  void shardFilesAreByteIdenticalWhateverTheThreadsAndTaskSplit() throws Exception {
    int[][] f = TypedFanouts.parse("cites=5,3;writes=4,2;*=3,2", G.schema());
    TypedNeighborSampler s = new TypedNeighborSampler(G, 0, f, 21);
    int[] order = s.order(SeedOrder.ALL, 1);
    int batchSize = 20;
    int batches = SeedOrder.batches(order.length, batchSize);
    byte[] one = write(s, order, batchSize, List.of(new int[] {0, batches}), 1, "t1");
    byte[] three = write(s, order, batchSize, List.of(new int[] {0, batches}), 3, "t3");
    byte[] split =
        write(
            s,
            order,
            batchSize,
            List.of(new int[] {0, 3}, new int[] {3, 11}, new int[] {11, batches}),
            2,
            "split");
    assertThat(three).isEqualTo(one);
    assertThat(split).isEqualTo(one);
  }

  /** Writes the batches of {@code ranges}, each sampled by its own stream (a task), to one file. */
  private byte[] write(
      TypedNeighborSampler s, int[] order, int batchSize, List<int[]> ranges, int threads, String n)
      throws Exception {
    List<TypedMiniBatch> all = new ArrayList<>();
    for (int[] range : ranges) {
      try (OrderedBatchStream<TypedMiniBatch> stream =
          new OrderedBatchStream<>(
              () -> s.newWorker()::sample, 1, order, batchSize, range[0], range[1], threads, 4)) {
        stream.forEachRemaining(all::add);
      }
    }
    Path f = dir.resolve(n + ".parquet");
    TypedShardPartWriter.write(f, all.iterator(), CompressionCodecName.ZSTD, META);
    return Files.readAllBytes(f);
  }

  @Test
  void eachReaderRefusesTheOtherKindOfShardFile() throws Exception {
    Path typed = dir.resolve("typed.parquet");
    TypedShardPartWriter.write(
        typed, sample(G, "2,2", 2).iterator(), CompressionCodecName.SNAPPY, META);
    assertThatThrownBy(() -> new ShardFileReader(typed))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("holds typed batches of a heterogeneous graph");
    Path plain = dir.resolve("plain.parquet");
    try (ShardFileWriter w = new ShardFileWriter(plain, CompressionCodecName.SNAPPY, META)) {
      w.write(
          BatchCodec.encode(
              BatchCodecTest.randomBatch(new java.util.SplittableRandom(1), 2, 4),
              null,
              FeatureEncoding.NONE));
    }
    assertThatThrownBy(() -> new TypedShardFileReader(plain))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("holds one-type batches");
  }

  @Test
  void decodeNamesTheColumnOfADamagedRow() {
    TypedMiniBatch b = sample(G, "3,2", 1).get(0);
    EncodedTypedBatch e = TypedBatchCodec.encode(b);
    TypedBatchShape shape = TypedBatchShape.of(G.schema(), 2);
    byte[] idx = e.indices().clone();
    idx[0] = (byte) 0xFF;
    idx[1] = (byte) 0xFF;
    idx[2] = (byte) 0xFF;
    idx[3] = (byte) 0x7F;
    EncodedTypedBatch bad =
        new EncodedTypedBatch(
            e.epoch(),
            e.batch(),
            e.numSeeds(),
            e.seedType(),
            e.layerSizes(),
            e.nodes(),
            e.indptr(),
            idx,
            e.labels(),
            e.labelPtr(),
            e.labelIds(),
            e.pairs(),
            e.features());
    assertThatThrownBy(() -> TypedBatchCodec.decode(bad, shape))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("typed shard row (epoch 0, batch 0): column 'indices' block");
    EncodedTypedBatch shortNodes =
        new EncodedTypedBatch(
            e.epoch(),
            e.batch(),
            e.numSeeds(),
            e.seedType(),
            e.layerSizes(),
            java.util.Arrays.copyOf(e.nodes(), e.nodes().length - 4),
            e.indptr(),
            e.indices(),
            e.labels(),
            e.labelPtr(),
            e.labelIds(),
            e.pairs(),
            e.features());
    assertThatThrownBy(() -> TypedBatchCodec.decode(shortNodes, shape))
        .hasMessageContaining("column 'nodes' has");
    assertThatThrownBy(() -> TypedBatchCodec.decode(e, TypedBatchShape.of(G.schema(), 3)))
        .hasMessageContaining("column 'layer_sizes' has");
  }

  @Test
  void aTypedShardSetReadsBackThroughItsManifestAndOneTypeReadersRefuseIt() throws Exception {
    List<TypedMiniBatch> batches = sample(G, "cites=3,2;*=2,1", 3);
    Path out = dir.resolve("shards");
    Path data = out.resolve("v-0001");
    Files.createDirectories(data.resolve("epoch-0000"));
    Path part = data.resolve(ShardPlan.partPath(0, 0));
    ShardPartWriter.Written w =
        TypedShardPartWriter.write(part, batches.iterator(), CompressionCodecName.ZSTD, META);
    ShardManifest m = new ShardManifest();
    m.dataDir = "v-0001";
    m.epochs = 1;
    m.partsPerEpoch = 1;
    m.typed =
        ShardManifest.Typed.of(G.schema(), 0, TypedFanouts.parse("cites=3,2;*=2,1", G.schema()));
    ShardManifest.Part p = new ShardManifest.Part();
    p.path = ShardPlan.partPath(0, 0);
    p.bytes = w.bytes();
    p.crc32c = w.crc32c();
    m.files.add(p);
    m.write(out.resolve(ShardManifest.FILE));

    assertThat(m.toJson()).contains("\"seed_type\" : \"paper\"").contains("\"fanouts\" : null");
    TypedShardSet set = TypedShardSet.open(out);
    assertThat(set.seedType()).isZero();
    Iterator<TypedMiniBatch> it = set.batches(0, true);
    for (TypedMiniBatch b : batches) {
      TypedBatchAssert.assertSame(it.next(), b);
    }
    assertThat(it.hasNext()).isFalse();
    assertThatThrownBy(() -> ShardManifest.read(out))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("typed shards of a heterogeneous graph (seed type 'paper')");
    assertThat(ShardManifest.readAny(out).isTyped()).isTrue();

    m.typed = null;
    m.write(out.resolve(ShardManifest.FILE));
    assertThat(m.toJson()).doesNotContain("typed");
    assertThatThrownBy(() -> TypedShardSet.open(out))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("one-type shards; this reader takes typed shards");
  }
}
