package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedStoreFixtures;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.typed.SimpleTypedSampler;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.nn.typed.TypedTestGraphs;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.TypedShardSet;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import io.fanout.train.TrainSpec;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed shards that inline a quantized store's encoded rows ({@code sample --features int8|int4|pq}
 * on a typed store whose featured types keep that encoding): each batch carries every featured
 * type's rows as the store holds them, the trainer decodes them with the store's decoder of the
 * type and trains the model bits of gathering from the store; shards of other parameters are
 * refused, naming the type.
 */
class TypedEncodedInlineFeaturesTest {
  private static final ArrayTypedGraph G = TypedTestGraphs.small(3);
  private static final int[][] SIZES = {{10, 14}, {7, 11}, {10}};
  private static final TypedTrainOptions OPTS = new TypedTrainOptions(2, 2, 0.02f, 1e-4f, 5);

  @TempDir Path tmp;

  private Path store(String name, FeatureParams[] params) {
    Path store = tmp.resolve(name);
    TypedStoreFixtures.write(store, G, SIZES, new int[][][] {null, null, null}, params);
    return store;
  }

  private Path shards(TypedGraph g, String name, FeatureEncoding enc) throws Exception {
    return TypedTestShards.write(g, tmp.resolve(name), enc);
  }

  /**
   * pq parameters per featured type: groups of 2 columns (the last one narrower), 4 seeded
   * centroids each.
   */
  private static FeatureParams[] pq() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(4);
    FeatureParams[] out = new FeatureParams[G.schema().numTypes()];
    for (int t = 0; t < out.length; t++) {
      int dim = G.schema().type(t).featureDim();
      if (dim == 0) {
        continue;
      }
      float[][] books = new float[(dim + 1) / 2][];
      for (int g = 0; g < books.length; g++) {
        books[g] = new float[4 * Math.min(2, dim - 2 * g)];
        for (int i = 0; i < books[g].length; i++) {
          books[g][i] = (float) r.nextGaussian();
        }
      }
      out[t] = FeatureParams.pq(dim, 2, 4, books);
    }
    return out;
  }

  private static float[] train(TypedGraph g, TypedEpochs epochs, Path modelDir) {
    TypedModelConfig cfg =
        TypedModelConfig.of(g.schema(), 0, TypedModelKind.RGCN, 8, 2, 0.2f, 0, EmbeddingMode.AUTO);
    SimpleTypedSampler s = new SimpleTypedSampler(g, 0, new int[] {3, 2}, 9);
    TypedSampler sampler = s::sample;
    try (TypedModel m = new TypedModel(cfg, new CpuBackend());
        TypedTrainer t = new TypedTrainer(m, g, epochs, sampler, OPTS)) {
      m.init(OPTS.seed());
      t.fit(modelDir, null);
      return TypedModelState.of(m);
    }
  }

  @Test
  void inlineEncodedRowsTrainTheModelOfGatheringFromTheStore() throws Exception {
    for (int code :
        new int[] {StoreLayout.ENCODING_INT8, StoreLayout.ENCODING_INT4, StoreLayout.ENCODING_PQ}) {
      FeatureEncoding enc = FeatureEncoding.of(StoreLayout.encodingName(code));
      Path store =
          store(
              "store-" + enc.id(),
              code == StoreLayout.ENCODING_PQ ? pq() : TypedStoreFixtures.affine(G, code));
      try (TypedGraphStore g = TypedGraphStore.open(store, true)) {
        TypedShardSet plain =
            TypedShardSet.open(shards(g, "plain-" + enc.id(), FeatureEncoding.NONE));
        TypedShardSet raw = TypedShardSet.open(shards(g, "inline-" + enc.id(), enc));
        assertThat(raw.featureDims()).containsExactly(3, 2, 0);
        assertThat(raw.featureParamsCrc32c())
            .containsExactly(g.featureParamsCrc32c(0), g.featureParamsCrc32c(1), null);
        TypedShardSet inline = TypedTrainRun.storeDecoders(raw, g, "--shards");

        // every batch carries the store's encoded rows, which decode to what the store gathers
        Iterator<TypedMiniBatch> a = inline.batches(0, true);
        Iterator<TypedMiniBatch> ids = plain.batches(0, true);
        int n = 0;
        while (a.hasNext()) {
          TypedMiniBatch b = a.next();
          TypedMiniBatch want = ids.next();
          assertThat(want.inlineFeatures()).isNull();
          assertThat(b.inlineFeatures()[2]).isNull(); // term: no features
          for (int t = 0; t < 2; t++) {
            assertThat(b.nodes(t)).isEqualTo(want.nodes(t));
            int dim = g.schema().type(t).featureDim();
            float[] rows = new float[b.nodes(t).length * dim];
            g.features(t).gather(b.nodes(t), 0, b.nodes(t).length, rows, 0);
            assertThat(b.inlineFeatures()[t]).containsExactly(rows);
          }
          n++;
        }
        assertThat(n).isEqualTo(8);
        assertThat(ids.hasNext()).isFalse();

        float[] gathered = train(g, TypedEpochs.shards(plain, true), tmp.resolve("m-" + enc.id()));
        float[] read =
            train(g, TypedEpochs.shards(inline, true), tmp.resolve("m-inline-" + enc.id()));
        assertThat(Arrays.equals(read, gathered)).as(enc.id()).isTrue();
        if (code == StoreLayout.ENCODING_INT8) { // decoded on the loader threads too
          float[] piped =
              train(
                  g,
                  TypedEpochs.shards(inline, true, new TrainSpec.Loading(2, 2)),
                  tmp.resolve("m-loader-" + enc.id()));
          assertThat(Arrays.equals(piped, gathered)).isTrue();
        }
      }
    }
  }

  @Test
  void shardsOfOtherParametersOrWithoutTheStoreAreRefused() throws Exception {
    FeatureParams[] params = TypedStoreFixtures.affine(G, StoreLayout.ENCODING_INT8);
    Path store = store("int8", params);
    Path shards;
    try (TypedGraphStore g = TypedGraphStore.open(store, true)) {
      shards = shards(g, "inline", FeatureEncoding.INT8);
    }
    TypedShardSet raw = TypedShardSet.open(shards);
    assertThatThrownBy(() -> raw.batches(0, false).next())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no graph store was given to decode them");

    // the author type's parameters differ (a wider range): its rows would decode to other values
    float[] min = new float[2];
    float[] max = {2, 2};
    params[1] = FeatureParams.affine(StoreLayout.ENCODING_INT8, min, max);
    try (TypedGraphStore other = TypedGraphStore.open(store("int8-other", params), true)) {
      assertThatThrownBy(() -> TypedTrainRun.storeDecoders(raw, other, "--val-shards"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("--val-shards")
          .hasMessageContaining("type 'author'")
          .hasMessageContaining("train on the store the shards were sampled from");
    }
    // an f32 store keeps no parameters
    try (TypedGraphStore f32 = TypedGraphStore.open(store("f32", new FeatureParams[3]), true)) {
      assertThatThrownBy(() -> TypedTrainRun.storeDecoders(raw, f32, "--shards"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("type 'paper'")
          .hasMessageContaining("no such parameters");
    }
  }
}
