package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.features.CachePolicy;
import io.fanout.features.RowCacheSizing;
import io.fanout.shard.ShardManifest;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The least heap a run needs, from the shard manifest and the model, with the max heap figure
 * injected (no -Xmx, no real OutOfMemoryError).
 */
class TrainMemoryTest {
  static final long MIB = 1L << 20;
  static final long GIB = 1L << 30;

  /** 10 M vertices of 1433 float32 features. */
  static final TrainMemory.Store STORE = TrainMemory.Store.f32(10_000_000, 1433);

  /** 10 batches per epoch of 1024 seeds and 50,000 nodes each, 4 parts per epoch, 2 epochs. */
  static ShardManifest shards() {
    ShardManifest sm = new ShardManifest();
    sm.batchSize = 1024;
    sm.fanouts = new int[] {25, 10};
    sm.batchesPerEpoch = 10;
    sm.partsPerEpoch = 4;
    sm.totals.batches = 20;
    sm.totals.nodes = 20 * 50_000L;
    return sm;
  }

  static TrainSpec spec(int epochs, int threads, int prefetch, boolean resume) {
    return spec(epochs, threads, prefetch, resume, null, 0);
  }

  static TrainSpec spec(
      int epochs, int threads, int prefetch, boolean resume, String cache, long cacheBytes) {
    return TrainSpec.builder(Path.of("g"), Path.of("s"), Path.of("m"))
        .optimization(o -> o.withEpochs(epochs))
        .output(o -> o.withResume(resume))
        .loading(new TrainSpec.Loading(threads, prefetch))
        .features(f -> f.withCache(cache == null ? null : CachePolicy.parse(cache), cacheBytes))
        .build();
  }

  @Test
  void theBoundIsTheModelStateAndTheFeatureRowsOfTheBatchesKeptReady() {
    int params = 1_000_000;
    long model = 4L * 4 * params;
    long batch = 4L * 50_000 * 1433;
    // 2 threads x (2 + 1) buffers, for this epoch and the next
    assertThat(new TrainMemory(spec(5, 2, 2, false), STORE, shards(), false).leastBytes(params))
        .isEqualTo(model + 12 * batch);
    // one epoch, or a resumed run that may have one left: one loader
    assertThat(new TrainMemory(spec(1, 2, 2, false), STORE, shards(), false).leastBytes(params))
        .isEqualTo(model + 6 * batch);
    assertThat(new TrainMemory(spec(5, 2, 2, true), STORE, shards(), false).leastBytes(params))
        .isEqualTo(model + 6 * batch);
    assertThat(new TrainMemory(spec(5, 2, 2, false), STORE, shards(), true).leastBytes(params))
        .isEqualTo(model + 6 * batch);
    // no more threads than parts, no more buffers than batches in an epoch
    assertThat(new TrainMemory(spec(1, 8, 2, false), STORE, shards(), false).leastBytes(params))
        .isEqualTo(model + 10 * batch);
    assertThat(new TrainMemory(spec(1, 1, 1, false), STORE, shards(), false).leastBytes(params))
        .isEqualTo(model + 2 * batch);
    // a feature cache's rows (whole rows) and its bookkeeping come on top; policy none holds no
    // rows, only one gather's arrays
    long slots = (1L << 30) / (4 * 1433);
    long belady =
        RowCacheSizing.heapBesideRows(
            CachePolicy.BELADY, slots, 4 * 1433, 10_000_000, 50_000, 32 * 50_000);
    assertThat(
            new TrainMemory(spec(1, 1, 1, false, "belady", 1L << 30), STORE, shards(), false)
                .leastBytes(params))
        .isEqualTo(model + 2 * batch + slots * 4 * 1433 + belady);
    // with --feature-cache-window auto the window may grow past 32 batches (1.6 M accesses) to 16
    // cache sizes of rows and the batch that reaches them
    long grown = 16 * slots + 50_000;
    assertThat(grown).isGreaterThan(32 * 50_000);
    assertThat(
            new TrainMemory(
                    spec(1, 1, 1, false, "belady", 1L << 30).toBuilder()
                        .features(f -> f.withCacheWindow(RowCacheSizing.AUTO_WINDOW))
                        .build(),
                    STORE,
                    shards(),
                    false)
                .leastBytes(params))
        .isEqualTo(
            model
                + 2 * batch
                + slots * 4 * 1433
                + RowCacheSizing.heapBesideRows(
                    CachePolicy.BELADY, slots, 4 * 1433, 10_000_000, 50_000, grown));
    assertThat(
            new TrainMemory(spec(1, 1, 1, false, "none", 1L << 30), STORE, shards(), false)
                .leastBytes(params))
        .isEqualTo(model + 2 * batch + 20 * 50_000);
    // zero-copy: the loaders hold no rows; a cache in pinned (off-heap) pages takes no heap for
    // its rows, only for its bookkeeping
    TrainSpec zeroCopy =
        spec(1, 1, 1, false, "belady", 1L << 30).toBuilder()
            .features(f -> f.withAccess(FeatureAccessMode.ZERO_COPY))
            .build();
    assertThat(new TrainMemory(zeroCopy, STORE, shards(), false, true).leastBytes(params))
        .isEqualTo(model + slots * 4 * 1433 + belady);
    assertThat(new TrainMemory(zeroCopy, STORE, shards(), false, false).leastBytes(params))
        .isEqualTo(model + belady);
  }

  @Test
  void theCachesBookkeepingIsPerSlotPerBatchRowAndForBeladyPerPlannedAccess() {
    // 28 bytes a slot, a slot map of 16 bytes a slot (its array of 4 bytes a vertex would be larger
    // than the 400-byte rows), 20 bytes a batch row
    assertThat(RowCacheSizing.heapBesideRows(CachePolicy.LRU, 1000, 400, 1_000_000, 100, 3200))
        .isEqualTo(44 * 1000 + 20 * 100);
    assertThat(RowCacheSizing.heapBesideRows(CachePolicy.NONE, 1000, 400, 1_000_000, 100, 3200))
        .isEqualTo(20 * 100);
    // the slot index by vertex where it is no larger than the rows
    assertThat(RowCacheSizing.heapBesideRows(CachePolicy.LRU, 1000, 4000, 1_000_000, 100, 3200))
        .isEqualTo(28 * 1000 + 4 * 1_000_000 + 20 * 100);
    // no more slots than vertices
    assertThat(RowCacheSizing.heapBesideRows(CachePolicy.LRU, 1000, 4, 10, 100, 3200))
        .isEqualTo(28 * 10 + 4 * 10 + 20 * 100);
    // belady: 16 bytes a planned access, and a next-use map (16 bytes an access) while it is
    // smaller than an array of the vertices (4 bytes a vertex)
    assertThat(RowCacheSizing.heapBesideRows(CachePolicy.BELADY, 1000, 400, 1_000_000, 100, 3200))
        .isEqualTo(44 * 1000 + 20 * 100 + 16 * 3200 + 16 * 3200);
    assertThat(RowCacheSizing.heapBesideRows(CachePolicy.BELADY, 1000, 400, 12_800, 100, 3200))
        .isEqualTo(28 * 1000 + 4 * 12_800 + 20 * 100 + 16 * 3200 + 4 * 12_800);
  }

  @Test
  void aProductsSizeBeladyCacheNamesItsBookkeepingWhenTheHeapIsShort() {
    // 2.5 M vertices of 100 float32 features, 40 batches of 557,570 nodes, a 50 MB cache: the
    // planned window (32 batches, about 17.8 M accesses) takes more heap than the cached rows
    ShardManifest sm = shards();
    sm.totals.batches = 40;
    sm.totals.nodes = 40 * 557_570L;
    sm.batchesPerEpoch = 40;
    TrainMemory m =
        new TrainMemory(
            spec(1, 1, 1, false, "belady", 50_000_000),
            TrainMemory.Store.f32(2_500_000, 100),
            sm,
            false);
    long rows = 4L * 100 * 557_570 * 2;
    long planned = 32L * 557_570;
    long cache =
        50_000_000 + 28 * 125_000 + 4 * 2_500_000 + 20 * 557_570 + 16 * planned + 4 * 2_500_000;
    assertThat(m.leastBytes(1000)).isEqualTo(16 * 1000 + rows + cache);
    assertThatThrownBy(() -> m.check(1000, 512 * MIB))
        .isInstanceOf(OutOfHeapException.class)
        .hasMessageContaining("for the feature cache (--feature-cache-bytes 50000000 and its")
        .hasMessageContaining(OutOfHeapException.size(cache));
  }

  @Test
  void aRunThatCannotFitIsRefusedNamingHeapBatchAndOptions() {
    TrainMemory m = new TrainMemory(spec(5, 2, 2, false), STORE, shards(), false);
    long need = m.leastBytes(1_000_000); // about 3.2 GiB
    m.check(1_000_000, need); // fits exactly
    assertThatThrownBy(() -> m.check(1_000_000, 2 * GIB))
        .isInstanceOf(OutOfHeapException.class)
        .hasMessageStartingWith("train needs at least 3.2 GiB of Java heap but has 2.0 GiB")
        .hasMessageContaining(
            "the loaders keep 12 batches ready, each of about 50,000 nodes x 1433")
        .hasMessageContaining("batches of 1024 seeds, fanouts 25,10, in the shards at s")
        .hasMessageContaining("1,000,000 parameters")
        .hasMessageContaining("FANOUT_JAVA_OPTS=-Xmx5g")
        .hasMessageContaining("bin/fanout sample --batch-size 512")
        .hasMessageContaining("--loader-threads, --prefetch")
        .hasMessageNotContaining("\n");
  }

  @Test
  void aRunThatRanOutSaysWithWhatAndHowToRaiseTheHeap() {
    OutOfMemoryError oom = new OutOfMemoryError("Java heap space");
    RuntimeException wrapped = new IllegalStateException("loading part-0 failed", oom);
    assertThat(TrainMemory.find(wrapped)).isSameAs(oom);
    assertThat(TrainMemory.find(new IllegalStateException("other"))).isNull();
    OutOfHeapException e =
        new TrainMemory(spec(5, 2, 2, false), STORE, shards(), false).ranOut(oom, 512 * MIB);
    assertThat(e)
        .hasCause(oom)
        .hasMessageStartingWith("train ran out of Java heap (max heap 512 MiB)")
        .hasMessageContaining("batches of about 50,000 nodes x 1433 features (batches of 1024")
        .hasMessageContaining("a sage model of hidden width 256")
        .hasMessageContaining("FANOUT_JAVA_OPTS=-Xmx1g")
        .hasMessageContaining("--batch-size 512");
    assertThat(e.getMessage()).doesNotContain("--reuse-hot");

    OutOfHeapException withReuse =
        new TrainMemory(
                spec(5, 2, 2, false).toBuilder()
                    .reuse(new HotReuse(0.1, 8, HotBy.FREQUENCY))
                    .build(),
                STORE,
                shards(),
                false)
            .ranOut(oom, 512 * MIB);
    long hot = Math.round(0.1 * STORE.vertices());
    assertThat(withReuse)
        .hasMessageContaining(
            String.format(
                java.util.Locale.ROOT,
                "--reuse-hot 0.1 keeps up to %,d hot vertices' feature rows and embeddings (up to %s;",
                hot,
                OutOfHeapException.size(hot * (4L * 1433 + 2L * 4 * 256))))
        .hasMessageContaining("--batch-size 512");
  }
}
