package io.fanout.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.features.CachePolicy;
import io.fanout.features.StoreFeatureRows;
import io.fanout.graph.GraphStore;
import io.fanout.nn.ActivationKind;
import io.fanout.nn.Block;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.nn.ModelKind;
import io.fanout.sample.MiniBatch;
import io.fanout.shard.FeatureEncoding;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.BackendKind;
import io.fanout.tensor.CheckingBackend;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.FeatureRows;
import io.fanout.train.BatchStream;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.ShardSet;
import io.fanout.train.TrainBatch;
import io.fanout.train.TrainInputs;
import io.fanout.train.TrainRun;
import io.fanout.train.TrainSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --feature-access zero-copy} on the CPU backends: the backend reads each batch's rows from
 * the mapped store through {@link FeatureRows} (the interface the CUDA backend's mapped rows
 * implement), only the node ids go up, and training writes the same model, byte for byte, as the
 * host gather; the inputs zero-copy cannot read are refused before training.
 */
class ZeroCopyTrainingTest {
  @TempDir static Path tmp;
  static TrainFixtures.Graph g;
  static Path store;
  static Path shards;

  @BeforeAll
  static void fixtures() throws Exception {
    g = TrainFixtures.graph(5, 300, 8);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, g);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, g, new int[] {4, 3}, 8, 2, 3);
  }

  static TrainSpec spec(
      String name, Path shardDir, String backend, String access, String norm, String cache) {
    return spec(store, name, shardDir, backend, access, norm, cache);
  }

  static TrainSpec spec(
      Path graph,
      String name,
      Path shardDir,
      String backend,
      String access,
      String norm,
      String cache) {
    return TrainSpec.builder(graph, shardDir, tmp.resolve(name))
        .inputs(i -> i.withValShards(shardDir))
        .architecture(
            new TrainSpec.Architecture(
                ModelKind.SAGE,
                16,
                0,
                0.5f,
                ActivationKind.RELU,
                FeatureNormKind.parse(norm),
                DecoderKind.DOT))
        .optimization(new TrainSpec.Optimization(0.01f, 5e-4f, LrSchedule.CONSTANT, 2, 7L))
        .features(
            f ->
                f.withAccess(FeatureAccessMode.parse(access))
                    .withCache(
                        cache == null ? null : CachePolicy.parse(cache),
                        cache == null ? 0 : 1 << 20))
        .device(d -> d.withBackend(BackendKind.parse(backend)))
        .build();
  }

  static byte[] train(String name, String backend, String access) throws Exception {
    return train(store, shards, name, backend, access);
  }

  static byte[] train(Path graph, Path shardDir, String name, String backend, String access)
      throws Exception {
    TrainRun.train(spec(graph, name, shardDir, backend, access, "none", null), null);
    return Files.readAllBytes(tmp.resolve(name).resolve("checkpoint.bin"));
  }

  /**
   * With {@code --feature-norm l1|l2} the backend normalizes the rows it reads in place: the model
   * of the loader's host normalization, bit for bit, on {@code cpu} and {@code cpu-checked}.
   */
  @ParameterizedTest
  @ValueSource(strings = {"l1", "l2"})
  void rowsReadInPlaceAreNormalizedAsTheHostGatherNormalizesThem(String norm) throws Exception {
    byte[] gather = trainNormed(norm + "-gather", "cpu", "gather", norm);
    assertThat(trainNormed(norm + "-zero-copy", "cpu", "zero-copy", norm)).isEqualTo(gather);
    assertThat(trainNormed(norm + "-device-checked", "cpu-checked", "device", norm))
        .isEqualTo(gather);
    assertThat(gather)
        .as("the norm changed the model")
        .isNotEqualTo(train(norm + "-none", "cpu", "gather"));
  }

  private static byte[] trainNormed(String name, String backend, String access, String norm)
      throws Exception {
    TrainRun.train(spec(store, name, shards, backend, access, norm, null), null);
    return Files.readAllBytes(tmp.resolve(name).resolve("checkpoint.bin"));
  }

  @Test
  void zeroCopyTrainsTheModelOfTheHostGatherBitForBit() throws Exception {
    byte[] gather = train("gather", "cpu", "gather");
    assertThat(train("zero-copy", "cpu", "zero-copy")).isEqualTo(gather);
    assertThat(train("zero-copy-checked", "cpu-checked", "zero-copy")).isEqualTo(gather);
    // device: the CPU's own memory already holds the rows; auto gathers on the CPU, as before
    assertThat(train("device", "cpu", "device")).isEqualTo(gather);
    assertThat(train("auto", "cpu", "auto")).isEqualTo(gather);
  }

  /**
   * A quantized store's rows are read in place and decoded by the store's decoder, the decoder of
   * the host gather: the same model bytes on {@code cpu} and {@code cpu-checked}, and still only
   * the node ids go up (the encoded rows never cross).
   */
  @ParameterizedTest
  @ValueSource(strings = {"f16", "int8", "int4", "pq"})
  void quantizedStoresTrainTheModelOfTheHostGatherBitForBit(String enc) throws Exception {
    Path q = tmp.resolve("store-" + enc);
    TrainFixtures.writeStore(q, g, enc);
    Path qs = tmp.resolve("shards-" + enc);
    TrainFixtures.writeShards(qs, q, g, new int[] {4, 3}, 8, 2, 3);
    try (GraphStore gs = GraphStore.open(q, false)) {
      assertThat(gs.manifest().featureEncoding).isEqualTo(enc);
    }
    byte[] gather = train(q, qs, enc + "-gather", "cpu", "gather");
    assertThat(train(q, qs, enc + "-zero-copy", "cpu", "zero-copy")).isEqualTo(gather);
    assertThat(train(q, qs, enc + "-zero-copy-checked", "cpu-checked", "zero-copy"))
        .isEqualTo(gather);
    assertThat(gather)
        .as("decoded rows are not the f32 rows")
        .isNotEqualTo(train("f32-" + enc, "cpu", "gather"));
    onlyTheNodeIdsGoUp(q, qs);
  }

  @Test
  void onlyTheNodeIdsGoUpAndTheRowsAreReadInPlace() {
    onlyTheNodeIdsGoUp(store, shards);
  }

  /**
   * One batch through {@code cpu-checked}: zero-copy uploads 4 bytes per input node (its id), the
   * gather {@code 4 x dim}, and both give the same forward pass.
   */
  private static void onlyTheNodeIdsGoUp(Path store, Path shards) {
    ModelConfig cfg = new ModelConfig("sage", 8, 16, 3, 2, 0.5f, "relu", "none");
    CheckingBackend be = new CheckingBackend(new CpuBackend());
    ShardSet set = ShardSet.open(shards);
    try (GraphStore gs = GraphStore.open(store, false);
        GnnModel model = new GnnModel(cfg, be);
        FeatureRows rows = StoreFeatureRows.map(be, gs);
        BatchStream ids =
            set.epochData(gs.features(), null, 8, FeatureNormKind.NONE, 1, 1, true, false).open(0);
        BatchStream gathered =
            set.epochData(gs.features(), 8, FeatureNormKind.NONE, 1, 1, true).open(0)) {
      model.init(3);
      TrainBatch zb = ids.next();
      TrainBatch gb = gathered.next();
      assertThat(zb.features()).as("the loader gathers nothing").isNull();
      MiniBatch mb = zb.batch();
      Block[] blocks = Block.of(mb);
      int n = blocks[0].numSrc();
      long ints = mb.numSeeds();
      for (Block k : blocks) {
        ints += k.numDst() + 1 + k.indptr()[k.numDst()];
      }
      be.resetTraffic();
      model.upload(blocks, mb.nodes(), rows, mb.labels(), mb.numSeeds());
      assertThat(be.traffic().uploadedBytes()).isEqualTo(4 * (ints + n));
      int outs = blocks[blocks.length - 1].numDst() * 3;
      float[] zeroCopy = new float[outs];
      be.download(
          model.forward(model.upload(blocks, mb.nodes(), rows, null, 0), false, 0L),
          0,
          zeroCopy,
          0,
          outs);
      be.resetTraffic();
      model.upload(Block.of(gb.batch()), gb.features(), gb.batch().labels(), mb.numSeeds());
      assertThat(be.traffic().uploadedBytes()).isEqualTo(4 * (ints + (long) n * 8));
      float[] gather = model.forward(Block.of(gb.batch()), gb.features(), false, 0L);
      assertThat(zeroCopy).isEqualTo(gather);
      ids.recycle(zb);
      gathered.recycle(gb);
    }
    assertThat(be.unclosed()).isZero();
    be.close();
  }

  @Test
  void inputsZeroCopyCannotReadAreRefused() throws Exception {
    // a norm is applied to the rows read in place, but not to a feature cache's pages
    TrainInputs.check(spec("r1", shards, "cpu", "zero-copy", "l2", null));
    assertThatThrownBy(
            () -> TrainInputs.check(spec("r1c", shards, "cpu", "zero-copy", "l2", "lru")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--feature-norm none")
        .hasMessageContaining("--feature-cache");
    // a feature cache is read in place from its own pages (FeatureCacheTrainTest)
    TrainInputs.check(spec("r2", shards, "cpu", "zero-copy", "none", "lru"));
    Path inline = tmp.resolve("inline-shards");
    TrainFixtures.writeShards(inline, store, g, new int[] {4, 3}, 8, 1, 3, FeatureEncoding.F32);
    assertThatThrownBy(
            () -> TrainInputs.check(spec("r3", inline, "cpu", "zero-copy", "none", null)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(inline.toString())
        .hasMessageContaining("node-id-only shards");
    assertThatThrownBy(() -> TrainInputs.check(spec("r5", shards, "cpu", "device", "none", "lru")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--feature-access device")
        .hasMessageContaining("--feature-cache");
    assertThatThrownBy(() -> TrainInputs.check(spec("r6", inline, "cpu", "device", "none", null)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("node-id-only shards");
    // auto is resolved when the run starts, and picks what can read these inputs
    TrainInputs.check(spec("r7", inline, "cpu", "auto", "l2", null));
    // The same inputs train with the host gather.
    TrainInputs.check(spec("r4", inline, "cpu", "gather", "l2", null));
  }
}
