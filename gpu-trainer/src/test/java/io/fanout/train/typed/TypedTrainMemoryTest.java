package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureCacheIo;
import io.fanout.features.RowCacheSizing;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.typed.HgnSettings;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.shard.ShardManifest;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.OutOfHeapException;
import io.fanout.train.TrainMemory;
import io.fanout.train.TrainSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

class TypedTrainMemoryTest {
  private static final int DIM = 128;
  private static final int ROW_BYTES = 4 * DIM;
  private static final int HIDDEN = 64;
  private static final long HEAP = Runtime.getRuntime().maxMemory();

  /** A paper type of {@code papers} float32 rows and an author type of {@code authors}. */
  private static TypedModelConfig config(long papers, long authors, boolean authorsEmbedded) {
    return new TypedModelConfig(
        TypedModelKind.RGCN,
        List.of(
            new TypedModelConfig.TypeInput("paper", DIM, false, papers),
            new TypedModelConfig.TypeInput(
                "author", authorsEmbedded ? 0 : DIM, authorsEmbedded, authors)),
        List.of(new TypedModelConfig.RelationSpec("writes", 1, 0)),
        0,
        HIDDEN,
        4,
        2,
        0f,
        0,
        false,
        FeatureNormKind.NONE,
        HgnSettings.DEFAULT);
  }

  private static ShardManifest shards() {
    ShardManifest sm = new ShardManifest();
    sm.batchesPerEpoch = 10;
    sm.partsPerEpoch = 4;
    sm.totals.batches = 10;
    sm.totals.nodes = 10 * 2_000L;
    return sm;
  }

  private static TypedTrainMemory memory(TypedModelConfig cfg, TypedCacheSettings cache) {
    return memory(cfg, cache, null);
  }

  private static TypedTrainMemory memory(
      TypedModelConfig cfg, TypedCacheSettings cache, FeatureAccessMode access) {
    int[] rowBytes = new int[cfg.numTypes()];
    for (int t = 0; t < rowBytes.length; t++) {
      rowBytes[t] = cfg.type(t).embedded() ? 0 : ROW_BYTES;
    }
    return new TypedTrainMemory(
        cfg, rowBytes, cache, shards(), TrainSpec.Loading.defaults(), access);
  }

  private static TypedCacheSettings lru(long bytes) {
    return new TypedCacheSettings(
        CachePolicy.LRU, bytes, FeatureCacheIo.BUFFERED, RowCacheSizing.DEFAULT_WINDOW_BATCHES);
  }

  @Test
  void refusesFeatureCacheBytesOverTheHeap() {
    // twice the heap's rows of papers, and a cache asking for all of them
    long papers = 2 * (HEAP / ROW_BYTES) + 1;
    TypedModelConfig cfg = config(papers, 1_000, true);

    assertThatThrownBy(() -> memory(cfg, lru(2 * HEAP)).check(0, HEAP))
        .isInstanceOf(OutOfHeapException.class)
        .hasMessageContaining("train needs at least")
        .hasMessageContaining("(max heap)")
        .hasMessageContaining("--feature-cache-bytes " + 2 * HEAP)
        .hasMessageContaining("choose a smaller --feature-cache-bytes");
    // the same graph without a cache fits: the cache is what does not
    assertThatCode(() -> memory(cfg, null).check(10_000, HEAP)).doesNotThrowAnyException();
  }

  @Test
  void refusesLearnedEmbeddingTablesOverTheHeap() {
    // values and two Adam moments: 12 bytes a float of the input width
    long authors = HEAP / (12L * HIDDEN) + 1;
    TypedTrainMemory m = memory(config(1_000, authors, true), null);

    assertThat(m.tableBytes()).isGreaterThan(HEAP);
    assertThatThrownBy(() -> m.check(0, HEAP))
        .isInstanceOf(OutOfHeapException.class)
        .hasMessageContaining("--learned-embeddings")
        .hasMessageContaining("'author'")
        .hasMessageContaining("--hidden");
    // the same vertices reading their features need no table
    assertThatCode(() -> memory(config(1_000, authors, false), null).check(10_000, HEAP))
        .doesNotThrowAnyException();
  }

  @Test
  void passesASmallRunAndCountsItsCacheAndTable() {
    TypedTrainMemory m = memory(config(1_000, 500, true), lru(1 << 20));

    assertThatCode(() -> m.check(10_000, HEAP)).doesNotThrowAnyException();
    // 1 MiB holds more than the 1,000 paper rows: the cache holds them all
    assertThat(m.cacheBytes())
        .isEqualTo(
            1_000L * ROW_BYTES
                + RowCacheSizing.heapBesideRows(CachePolicy.LRU, 1_000, ROW_BYTES, 1_000, 0, 0));
    assertThat(m.tableBytes()).isEqualTo(12L * 500 * HIDDEN);
  }

  @Test
  void refusesDenseParametersOverTheHeap() {
    TypedTrainMemory m = memory(config(1_000, 500, false), null);

    assertThatThrownBy(() -> m.check(HEAP / 16 + 1, HEAP))
        .isInstanceOf(OutOfHeapException.class)
        .hasMessageContaining("parameters with their gradients and Adam moments");
  }

  @Test
  void rowsReadInPlaceLeaveTheReadyBatchesWithoutRows() {
    TypedModelConfig cfg = config(1_000, 500, false);
    TrainSpec.Loading loading = TrainSpec.Loading.defaults();
    long ready =
        TrainMemory.readyBatches(loading.loaderThreads(), loading.prefetch(), shards(), 1, true);
    TypedTrainMemory gather = memory(cfg, null, FeatureAccessMode.GATHER);
    // every type reads rows of DIM features: a mean batch's 2,000 nodes x DIM floats per batch
    assertThat(gather.batchFloats()).isEqualTo(2_000L * DIM);
    assertThat(memory(cfg, null, FeatureAccessMode.AUTO).leastBytes(10_000))
        .isEqualTo(gather.leastBytes(10_000));
    for (FeatureAccessMode inPlace :
        new FeatureAccessMode[] {FeatureAccessMode.ZERO_COPY, FeatureAccessMode.DEVICE}) {
      TypedTrainMemory m = memory(cfg, null, inPlace);
      assertThat(m.batchFloats()).isZero();
      assertThat(gather.leastBytes(10_000) - m.leastBytes(10_000))
          .isEqualTo(4L * ready * 2_000 * DIM);
    }
    // auto counts the rows until the run resolves it; then as the mode it resolved to
    TypedTrainMemory auto = memory(cfg, null, FeatureAccessMode.AUTO);
    assertThat(auto.rowsInPlace(true).leastBytes(10_000))
        .isEqualTo(memory(cfg, null, FeatureAccessMode.ZERO_COPY).leastBytes(10_000));
    assertThat(auto.rowsInPlace(false).leastBytes(10_000)).isEqualTo(gather.leastBytes(10_000));
    // a heap between the two bounds refuses the gathered run only, naming the ready batches' ids
    long heap = gather.leastBytes(10_000) - 1;
    assertThatCode(() -> memory(cfg, null, FeatureAccessMode.ZERO_COPY).check(10_000, heap))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> gather.check(10_000, heap)).isInstanceOf(OutOfHeapException.class);
    assertThatThrownBy(() -> memory(cfg, null, FeatureAccessMode.ZERO_COPY).check(10_000, 1))
        .hasMessageContaining("node ids only");
  }
}
