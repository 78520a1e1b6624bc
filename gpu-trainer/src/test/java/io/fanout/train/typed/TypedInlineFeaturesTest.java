package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureCacheIo;
import io.fanout.features.RowCacheSizing;
import io.fanout.graph.ArrayTypedGraph;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.typed.SimpleTypedSampler;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.nn.typed.TypedTestGraphs;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.shard.EncodedTypedBatch;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.TypedShardSet;
import io.fanout.store.Half;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CheckingBackend;
import io.fanout.tensor.CpuBackend;
import io.fanout.train.HotBy;
import io.fanout.train.HotReuse;
import io.fanout.train.TrainSpec;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed shards with inline feature rows ({@code sample --features}): the trainer reads the rows the
 * shards carry instead of gathering them from the graph, and trains the same model bits when the
 * rows are the graph's own (f32), other bits from f16 rows, which are the graph's rounded to half
 * precision; the featureless type carries none; a type the model embeds while the shards carry its
 * rows is refused.
 */
class TypedInlineFeaturesTest {
  private static final ArrayTypedGraph G = TypedTestGraphs.small(3);
  private static final TypedTrainOptions OPTS = new TypedTrainOptions(2, 2, 0.02f, 1e-4f, 5);

  @TempDir Path tmp;

  /** One sampled epoch of the 16 training papers in batches of 2, as 2 part files. */
  private Path shards(String name, FeatureEncoding enc) throws Exception {
    return TypedTestShards.write(G, tmp.resolve(name), enc);
  }

  private static TypedModelConfig config(EmbeddingMode embeddings) {
    return TypedModelConfig.of(G.schema(), 0, TypedModelKind.RGCN, 8, 2, 0.2f, 0, embeddings);
  }

  private static float[] train(TypedEpochs epochs, Path modelDir) {
    return train(epochs, modelDir, HotReuse.OFF, new CpuBackend());
  }

  /** As above, with hot reuse {@code reuse} on {@code be} (closed after). */
  private static float[] train(TypedEpochs epochs, Path modelDir, HotReuse reuse, Backend be) {
    SimpleTypedSampler s = new SimpleTypedSampler(G, 0, new int[] {3, 2}, 9);
    TypedSampler sampler = s::sample;
    try (be;
        TypedModel m = new TypedModel(config(EmbeddingMode.AUTO), be);
        TypedTrainer t = new TypedTrainer(m, G, epochs, sampler, OPTS)) {
      t.reuseHot(reuse);
      m.init(OPTS.seed());
      t.fit(modelDir, null);
      return TypedModelState.of(m);
    }
  }

  private static final HotReuse REUSE = new HotReuse(0.5, 2, HotBy.FREQUENCY);

  @Test
  void reuseOverInlineF32RowsTrainsTheModelOfReuseGatheringFromTheGraph() throws Exception {
    TypedShardSet plain = TypedShardSet.open(shards("plain", FeatureEncoding.NONE));
    TypedShardSet inline = TypedShardSet.open(shards("f32", FeatureEncoding.F32));
    float[] gathered = train(TypedEpochs.shards(plain, true), null, REUSE, new CpuBackend());
    assertThat(Arrays.equals(gathered, train(TypedEpochs.shards(plain, true), null)))
        .as("reuse trains another model")
        .isFalse();
    assertThat(train(TypedEpochs.shards(inline, true), null, REUSE, new CpuBackend()))
        .containsExactly(gathered);
    for (int[] tk : new int[][] {{1, 1}, {3, 4}}) {
      assertThat(
              train(
                  TypedEpochs.shards(inline, true, new TrainSpec.Loading(tk[0], tk[1])),
                  null,
                  REUSE,
                  new CpuBackend()))
          .as("loader threads %d, prefetch %d", tk[0], tk[1])
          .containsExactly(gathered);
    }
    // the checking backend: the same bits, and its close fails if a tensor is left
    CheckingBackend checked = new CheckingBackend(new CpuBackend());
    assertThat(
            train(
                TypedEpochs.shards(inline, true, new TrainSpec.Loading(2, 2)),
                null,
                REUSE,
                checked))
        .containsExactly(gathered);
    assertThat(checked.unclosed()).isZero();
    // the trainer reads the shard's rows with reuse too: half-precision rows train other bits
    TypedShardSet f16 = TypedShardSet.open(shards("f16", FeatureEncoding.F16));
    assertThat(
            Arrays.equals(
                train(TypedEpochs.shards(f16, true), null, REUSE, new CpuBackend()), gathered))
        .isFalse();
  }

  /** Type {@code t}'s rows of {@code ids} in the graph, rounded to half precision. */
  private static float[] halfRows(int t, int[] ids) {
    int dim = G.schema().type(t).featureDim();
    float[] x = new float[ids.length * dim];
    G.features(t).gather(ids, 0, ids.length, x, 0);
    for (int i = 0; i < x.length; i++) {
      x[i] = Half.toFloat(Half.fromFloat(x[i]));
    }
    return x;
  }

  @Test
  void theHotBlockAndEveryPrunedHopCarryTheShardsOwnRows() throws Exception {
    TypedShardSet f16 = TypedShardSet.open(shards("f16", FeatureEncoding.F16));
    TypedModelConfig cfg = config(EmbeddingMode.AUTO);
    TypedHotSet hot =
        TypedHotSet.build(TypedEpochs.shards(f16, true), G, cfg, 0.5, HotBy.FREQUENCY);
    assertThat(hot.size()).isPositive();
    int pruned = 0;
    for (int t = 0; t < 2; t++) {
      int[] ids = hot.block().nodes(t);
      assertThat(hot.features()[t]).as("hot block, type %d", t).containsExactly(halfRows(t, ids));
    }
    assertThat(hot.features()[2]).as("term: embedded").isNull();
    for (Iterator<TypedMiniBatch> it = f16.batches(0, true); it.hasNext(); ) {
      io.fanout.nn.typed.ReusedBottom r = TypedHotPruner.prune(it.next(), hot);
      if (r == null) {
        continue;
      }
      pruned++;
      float[][] rows = r.block().inlineFeatures();
      for (int t = 0; t < 2; t++) {
        assertThat(rows[t]).as("type %d", t).containsExactly(halfRows(t, r.block().nodes(t)));
      }
      assertThat(rows[2]).isNull();
    }
    assertThat(pruned).isPositive();
  }

  @Test
  void inlineF32RowsTrainTheModelGatheringFromTheGraphTrains() throws Exception {
    TypedShardSet plain = TypedShardSet.open(shards("plain", FeatureEncoding.NONE));
    TypedShardSet inline = TypedShardSet.open(shards("f32", FeatureEncoding.F32));
    assertThat(plain.featureDims()).isNull();
    assertThat(inline.featureDims()).containsExactly(3, 2, 0);
    float[] gathered = train(TypedEpochs.shards(plain, true), tmp.resolve("m-plain"));
    float[] read = train(TypedEpochs.shards(inline, true), tmp.resolve("m-f32"));
    float[] piped =
        train(
            TypedEpochs.shards(inline, true, new TrainSpec.Loading(2, 2)),
            tmp.resolve("m-f32-loader"));
    assertThat(Arrays.equals(read, gathered)).isTrue();
    assertThat(Arrays.equals(piped, gathered)).isTrue();
    // the trainer reads the inline rows, not the graph's: half-precision rows train other bits
    TypedShardSet f16 = TypedShardSet.open(shards("f16", FeatureEncoding.F16));
    assertThat(Arrays.equals(train(TypedEpochs.shards(f16, true), tmp.resolve("m-f16")), gathered))
        .isFalse();
  }

  @Test
  void batchesCarryTheGraphsRowsOfTheirFeaturedTypesOnly() throws Exception {
    TypedShardSet f32 = TypedShardSet.open(shards("f32", FeatureEncoding.F32));
    TypedShardSet f16 = TypedShardSet.open(shards("f16", FeatureEncoding.F16));
    Iterator<TypedMiniBatch> a = f32.batches(0, true);
    Iterator<TypedMiniBatch> h = f16.batches(0, true);
    int n = 0;
    while (a.hasNext()) {
      TypedMiniBatch b = a.next();
      TypedMiniBatch half = h.next();
      float[][] rows = b.inlineFeatures();
      assertThat(rows[2]).isNull(); // term: no features
      for (int t = 0; t < 2; t++) {
        int dim = G.schema().type(t).featureDim();
        float[] want = new float[b.nodes(t).length * dim];
        G.features(t).gather(b.nodes(t), 0, b.nodes(t).length, want, 0);
        assertThat(rows[t]).containsExactly(want);
        for (int i = 0; i < want.length; i++) {
          want[i] = Half.toFloat(Half.fromFloat(want[i]));
        }
        assertThat(half.inlineFeatures()[t]).containsExactly(want);
      }
      n++;
    }
    assertThat(n).isEqualTo(8);
    assertThat(h.hasNext()).isFalse();
  }

  @Test
  void inlineRowsOfAnEmbeddedTypeAreRefused() throws Exception {
    TypedShardSet inline = TypedShardSet.open(shards("f32", FeatureEncoding.F32));
    TypedTrainRun.checkInlineFeatures(inline, config(EmbeddingMode.AUTO), "--shards");
    assertThatThrownBy(
            () -> TypedTrainRun.checkInlineFeatures(inline, config(EmbeddingMode.ALL), "--shards"))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("--learned-embeddings")
        .hasMessageContaining("'paper'");
  }

  @Test
  void aFeatureCacheOverInlineRowsIsRefusedInOneLineSayingWhy() throws Exception {
    TypedShardSet inline = TypedShardSet.open(shards("f16", FeatureEncoding.F16));
    TypedCacheSettings belady =
        new TypedCacheSettings(
            CachePolicy.BELADY,
            4096,
            FeatureCacheIo.BUFFERED,
            RowCacheSizing.DEFAULT_WINDOW_BATCHES);
    assertThatThrownBy(() -> TypedTrainRun.checkCacheOverInlineRows(inline, belady, "--shards"))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageStartingWith("train --feature-cache belady reads feature rows from the store's")
        .hasMessageContaining(
            "and --shards " + inline.dir() + " inline them (sample --features f16)")
        .hasMessageContaining("there is nothing to cache")
        .hasMessageNotContaining("\n");
    // validation shards that inline rows would be read through the cache, not as they are
    assertThatThrownBy(() -> TypedTrainRun.checkCacheOverInlineRows(inline, belady, "--val-shards"))
        .hasMessageContaining("and --val-shards " + inline.dir() + " inline them");
    TypedTrainRun.checkCacheOverInlineRows(inline, null, "--shards");
    TypedTrainRun.checkCacheOverInlineRows(
        TypedShardSet.open(shards("plain", FeatureEncoding.NONE)), belady, "--val-shards");
  }

  @Test
  void aRowWhoseFeatureBytesAreShortIsRefusedNamingTheColumn() throws Exception {
    TypedShardSet f32 = TypedShardSet.open(shards("f32", FeatureEncoding.F32));
    Iterator<EncodedTypedBatch> rows = f32.encoded(0, 0, false, b -> true);
    EncodedTypedBatch e = rows.next();
    ((AutoCloseable) rows).close();
    EncodedTypedBatch cut = e.withFeatures(Arrays.copyOf(e.features(), e.features().length - 4));
    assertThatThrownBy(() -> f32.decode(cut))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("features");
  }
}
