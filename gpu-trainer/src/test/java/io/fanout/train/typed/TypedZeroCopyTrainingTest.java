package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureCacheIo;
import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedStoreFixtures;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.nn.typed.TypedTestGraphs;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.TypedShardSet;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.BackendKind;
import io.fanout.tensor.CheckingBackend;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.FloatTensor;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.HotBy;
import io.fanout.train.HotReuse;
import io.fanout.train.ReuseBackward;
import io.fanout.train.ReuseRefresh;
import io.fanout.train.TrainSpec;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code train --feature-access zero-copy|device} on a typed store of two featured types (paper: 3
 * columns, author: 2) and one embedded type (term): the backend reads each featured type's rows
 * from that type's mapped feature file ({@link TypedInPlaceRows}), in any encoding, normalized on
 * the backend; the model is the host gather's, byte for byte, on {@code cpu} and {@code
 * cpu-checked}, and in checking mode a step uploads the featured types' node ids instead of their
 * rows. What cannot be read in place is refused with one line.
 */
class TypedZeroCopyTrainingTest {
  private static final ArrayTypedGraph G = TypedTestGraphs.small(3);
  private static final int PAPER = 0;
  private static final int[][] SIZES = {{10, 14}, {7, 11}, {10}};

  @TempDir static Path tmp;
  private static Path f32;
  private static Path shards;
  private static Path val;

  @BeforeAll
  static void writeStoreAndShards() throws Exception {
    f32 = store("f32", null);
    try (TypedGraphStore g = TypedGraphStore.open(f32, true)) {
      shards =
          TypedTestShards.write(
              g, tmp.resolve("shards"), StoreLayout.SPLIT_TRAIN, 2, 2, FeatureEncoding.NONE);
      val = TypedTestShards.val(g, tmp.resolve("val"));
    }
  }

  /** The graph's store with type t's rows in {@code encodings[t]} (null: all f32). */
  private static Path store(String name, String[] encodings) {
    Path s = tmp.resolve(name + ".store");
    TypedStoreFixtures.write(s, G, SIZES, new int[][][] {null, null, null}, encodings);
    return s;
  }

  /**
   * A run on {@code g} from {@code trainShards} into {@code modelDir}: 2 epochs, validated on the
   * val shards, 2 loader threads with a prefetch of 2, on the CPU backend gathering its rows.
   */
  private static TypedTrainRequest.Builder request(Path modelDir, TypedGraph g, Path trainShards) {
    return TypedTestRuns.rgcn(g, trainShards, modelDir)
        .epochs(2)
        .valShards(val)
        .loading(new TrainSpec.Loading(2, 2));
  }

  /**
   * Trains on {@code store} from the training shards, the {@link #request} as {@code run} sets it;
   * the checkpoint's bytes, the run's log appended to {@code log} (null: none kept).
   */
  private static byte[] train(
      Path store, String name, UnaryOperator<TypedTrainRequest.Builder> run, StringBuilder log)
      throws Exception {
    Path md = tmp.resolve("model-" + name);
    return TypedTestRuns.train(store, g -> run.apply(request(md, g, shards)).build(), log);
  }

  private static byte[] train(
      Path store, String name, BackendKind backend, FeatureAccessMode access, FeatureNormKind norm)
      throws Exception {
    return train(store, name, b -> b.backend(backend).access(access).featureNorm(norm), null);
  }

  private static byte[] f32Gather;

  /** The host gather's model on the f32 store, trained once. */
  private static synchronized byte[] f32Gather() throws Exception {
    if (f32Gather == null) {
      f32Gather =
          train(f32, "gather", BackendKind.CPU, FeatureAccessMode.GATHER, FeatureNormKind.NONE);
    }
    return f32Gather;
  }

  @Test
  void zeroCopyAndDeviceTrainTheModelOfTheHostGatherBitForBit() throws Exception {
    FeatureNormKind none = FeatureNormKind.NONE;
    byte[] gather = f32Gather();
    assertThat(train(f32, "zc", BackendKind.CPU, FeatureAccessMode.ZERO_COPY, none))
        .isEqualTo(gather);
    assertThat(train(f32, "zc-chk", BackendKind.CPU_CHECKED, FeatureAccessMode.ZERO_COPY, none))
        .isEqualTo(gather);
    assertThat(train(f32, "dev-chk", BackendKind.CPU_CHECKED, FeatureAccessMode.DEVICE, none))
        .isEqualTo(gather);
    // auto gathers on the CPU backends
    assertThat(train(f32, "auto", BackendKind.CPU, FeatureAccessMode.AUTO, none)).isEqualTo(gather);
    // --feature-norm l2 is applied by the backend to the rows it read
    FeatureNormKind l2 = FeatureNormKind.L2;
    byte[] gatherL2 = train(f32, "gather-l2", BackendKind.CPU, FeatureAccessMode.GATHER, l2);
    assertThat(gatherL2).as("the norm changed the model").isNotEqualTo(gather);
    assertThat(train(f32, "zc-l2", BackendKind.CPU_CHECKED, FeatureAccessMode.ZERO_COPY, l2))
        .isEqualTo(gatherL2);
  }

  /**
   * Each type's rows are decoded with that type's own decoder where they lie in its mapping: the
   * host gather's model, byte for byte, on quantized types next to f32 ones.
   */
  @ParameterizedTest
  @ValueSource(strings = {"int8,f16", "f32,int4"})
  void quantizedTypesTrainTheModelOfTheHostGatherBitForBit(String encodings) throws Exception {
    String[] enc = (encodings + ",").split(",", -1);
    Path q = store(encodings.replace(',', '-'), new String[] {enc[0], enc[1], null});
    String name = "q-" + encodings.replace(',', '-');
    FeatureNormKind none = FeatureNormKind.NONE;
    byte[] gather = train(q, name + "-gather", BackendKind.CPU, FeatureAccessMode.GATHER, none);
    assertThat(gather).as("decoded rows are not the f32 rows").isNotEqualTo(f32Gather());
    assertThat(train(q, name + "-zc", BackendKind.CPU, FeatureAccessMode.ZERO_COPY, none))
        .isEqualTo(gather);
    assertThat(train(q, name + "-dev-chk", BackendKind.CPU_CHECKED, FeatureAccessMode.DEVICE, none))
        .isEqualTo(gather);
    onlyTheNodeIdsOfFeaturedTypesGoUp(q);
  }

  @Test
  void onlyTheNodeIdsOfFeaturedTypesGoUpOnF32() {
    onlyTheNodeIdsOfFeaturedTypesGoUp(f32);
  }

  /**
   * One batch through {@code cpu-checked}, by a model that reads its featured types in place and
   * one that takes the host gather: the host gives the first no rows of those types, it uploads
   * {@code 4 x dim - 4} bytes fewer per input node of each (its id instead of its row), the
   * embedded type's rows go up in both, and both give the same logits.
   */
  private static void onlyTheNodeIdsOfFeaturedTypesGoUp(Path store) {
    try (TypedGraphStore g = TypedGraphStore.open(store, false);
        CheckingBackend be = new CheckingBackend(new CpuBackend())) {
      TypedModelConfig cfg =
          TypedModelConfig.of(
              g.schema(), PAPER, TypedModelKind.RGCN, 8, 2, 0.2f, 0, EmbeddingMode.AUTO);
      TypedShardSet set = TypedShardSet.open(shards);
      TypedMiniBatch b = set.batches(0, true).next();
      try (TypedModel inPlace = new TypedModel(cfg, be);
          TypedModel host = new TypedModel(cfg, be);
          TypedInPlaceRows rows =
              TypedInPlaceRows.open(
                  FeatureAccessMode.ZERO_COPY, g, set, null, false, cfg, be, null)) {
        inPlace.init(7);
        host.init(7);
        inPlace.readFeaturesFrom(rows.rows());
        float[][] none = TypedFeatures.gather(g, inPlace, b);
        assertThat(none[0]).as("no host rows of paper").isNull();
        assertThat(none[1]).as("no host rows of author").isNull();
        be.resetTraffic();
        float[] a = logits(inPlace, b, none);
        long idsOnly = be.traffic().uploadedBytes();
        be.resetTraffic();
        float[] h = logits(host, b, TypedFeatures.gather(g, cfg, b));
        long gathered = be.traffic().uploadedBytes();
        long rowsNotSent = 0;
        for (int t = 0; t < 2; t++) {
          int n = b.layerSize(t, b.layers());
          assertThat(n).isPositive();
          rowsNotSent += (long) n * (4L * cfg.type(t).featureDim() - 4);
        }
        assertThat(gathered - idsOnly).isEqualTo(rowsNotSent);
        assertThat(a).containsExactly(h);
      }
      assertThat(be.unclosed()).isZero();
    }
  }

  private static float[] logits(TypedModel m, TypedMiniBatch b, float[][] x) {
    FloatTensor lg = m.forward(b, x, false, 11);
    float[] out = new float[b.numSeeds() * m.config().classes()];
    m.backend().download(lg, 0, out, 0, out.length);
    return out;
  }

  /** The checkpoint records no feature access: a run may resume with another. */
  @Test
  void aRunResumesWithAnotherFeatureAccessToTheSameModel() throws Exception {
    byte[] straight = train(f32, "straight", b -> b.epochs(3), null);
    train(f32, "halves", b -> b.epochs(1), null);
    assertThat(
            train(
                f32,
                "halves",
                b -> b.epochs(3).resume(true).access(FeatureAccessMode.ZERO_COPY),
                null))
        .isEqualTo(straight);
  }

  /**
   * With hot reuse the backend reads the pruned bottom hop's rows in place, and the hot block's
   * rows too where the trainer's backend computes the block (an inline refresh, with or without a
   * deferred backward): none of them is gathered on the host. An overlapped refresh's CPU worker
   * still takes them from the host. The model is the host gather's every way.
   */
  @Test
  void hotReuseReadsThePrunedAndTheHotBlockRowsInPlace() throws Exception {
    HotReuse[] reuses = {
      new HotReuse(0.5, 2, HotBy.FREQUENCY),
      new HotReuse(0.5, 2, HotBy.FREQUENCY, ReuseRefresh.INLINE, ReuseBackward.DEFERRED),
      new HotReuse(0.5, 2, HotBy.FREQUENCY, ReuseRefresh.OVERLAPPED)
    };
    for (HotReuse reuse : reuses) {
      String id = reuse.refresh().id() + "-" + reuse.backward().id();
      StringBuilder gatherLog = new StringBuilder();
      byte[] gather = train(f32, "reuse-gather-" + id, b -> b.reuse(reuse), gatherLog);
      StringBuilder zcLog = new StringBuilder();
      UnaryOperator<TypedTrainRequest.Builder> zeroCopy =
          b -> b.reuse(reuse).backend(BackendKind.CPU_CHECKED).access(FeatureAccessMode.ZERO_COPY);
      assertThat(train(f32, "reuse-zc-" + id, zeroCopy, zcLog)).as(id).isEqualTo(gather);
      assertThat(hotBlockHostRows(gatherLog)).as(id).isPositive();
      assertThat(hotBlockHostRows(zcLog))
          .as(id)
          .isEqualTo(reuse.refresh() == ReuseRefresh.OVERLAPPED ? hotBlockHostRows(gatherLog) : 0);
    }
  }

  /** The hot block's feature rows the run held on the host, from its "hot reuse" line. */
  private static long hotBlockHostRows(CharSequence log) {
    Matcher m = Pattern.compile("hot_block_host_rows=(\\d+)").matcher(log);
    assertThat(m.find()).as("a hot reuse line in %s", log).isTrue();
    return Long.parseLong(m.group(1));
  }

  /**
   * A link model on the store of {@link LinkCommunityGraph} (user, item and cat, all featured):
   * training and the validation of the held-out edges read every type's rows in place, to the
   * parameters and metrics of the host gather.
   */
  @Test
  void linkTrainingReadsTheRowsInPlaceToo() {
    LinkCommunityGraph lg = new LinkCommunityGraph(80, 96, 12, 3);
    Path s = tmp.resolve("link.store");
    TypedStoreFixtures.write(
        s, lg.graph, new int[][] {{40, 40}, {50, 46}, {12}}, new int[][][] {null, null, null});
    float[][] params = new float[2][];
    double[] auc = new double[2];
    for (int run = 0; run < 2; run++) {
      try (TypedGraphStore g = TypedGraphStore.open(s, false);
          CheckingBackend be = new CheckingBackend(new CpuBackend())) {
        TypedLinkTask task = TypedLinkTask.of(g.schema(), "buys", DecoderKind.DOT);
        TypedModelConfig cfg =
            TypedModelConfig.ofLink(
                g.schema(), task.relation(), TypedModelKind.RGCN, 16, 2, 0f, 0, EmbeddingMode.AUTO);
        FeatureAccessMode access =
            run == 0 ? FeatureAccessMode.GATHER : FeatureAccessMode.ZERO_COPY;
        try (TypedModel m = new TypedModel(cfg, be, DecoderKind.DOT);
            TypedInPlaceRows rows =
                TypedInPlaceRows.open(access, g, null, null, false, cfg, be, null)) {
          assertThat(rows == null).isEqualTo(run == 0);
          if (rows != null) {
            m.readFeaturesFrom(rows.rows());
          }
          m.init(7);
          try (TypedLinkTrainer t =
              new TypedLinkTrainer(
                  m,
                  g,
                  task,
                  lg.linkEpochs(7),
                  LinkCommunityGraph.FULL,
                  new TypedTrainOptions(3, 64, 0.01f, 0f, 7))) {
            auc[run] = t.fit(null, lg.val, null).lastVal().auc();
            params[run] = m.params();
          }
        }
      }
    }
    assertThat(params[1]).containsExactly(params[0]);
    assertThat(auc[1]).isEqualTo(auc[0]);
  }

  @Test
  void whatCannotBeReadInPlaceIsRefusedWithOneLine() throws Exception {
    Path inline;
    try (TypedGraphStore g = TypedGraphStore.open(f32, true)) {
      inline =
          TypedTestShards.write(
              g, tmp.resolve("inline"), StoreLayout.SPLIT_TRAIN, 1, 1, FeatureEncoding.F32);
    }
    Path md = tmp.resolve("refused");
    try (TypedGraphStore g = TypedGraphStore.open(f32, false)) {
      assertThatThrownBy(
              () ->
                  TypedTrainRun.train(
                      request(md, g, inline).epochs(1).access(FeatureAccessMode.ZERO_COPY).build(),
                      null,
                      () -> false))
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageContaining("train --feature-access zero-copy: --shards " + inline)
          .hasMessageContaining("node-id-only shards")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
      // auto reads them: it gathers on the CPU backends
      TypedTrainRun.train(
          request(md, g, inline).epochs(1).access(FeatureAccessMode.AUTO).build(),
          null,
          () -> false);
      assertThatThrownBy(
              () ->
                  TypedTrainRun.train(
                      request(tmp.resolve("refused-cache"), g, shards)
                          .epochs(1)
                          .access(FeatureAccessMode.DEVICE)
                          .cache(
                              new TypedCacheSettings(
                                  CachePolicy.LRU, 4096, FeatureCacheIo.BUFFERED, 8))
                          .build(),
                      null,
                      () -> false))
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageContaining("train --feature-access device: a typed store's --feature-cache");
    }
    assertThatThrownBy(
            () ->
                TypedTrainRun.train(
                    request(tmp.resolve("refused-array"), G, shards)
                        .epochs(1)
                        .access(FeatureAccessMode.ZERO_COPY)
                        .build(),
                    null,
                    () -> false))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("train --feature-access zero-copy: the graph is not a typed store");
    assertThat(tmp.resolve("refused-cache").resolve("checkpoint.bin")).doesNotExist();
  }
}
