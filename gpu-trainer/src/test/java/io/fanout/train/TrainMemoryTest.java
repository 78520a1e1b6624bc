package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

  static ModelRuns.TrainSpec spec(int epochs, int threads, int prefetch, boolean resume) {
    return spec(epochs, threads, prefetch, resume, null, 0);
  }

  static ModelRuns.TrainSpec spec(
      int epochs, int threads, int prefetch, boolean resume, String cache, long cacheBytes) {
    ModelRuns.TrainSpec d = ModelRuns.TrainSpec.defaults(Path.of("g"), Path.of("s"), Path.of("m"));
    return new ModelRuns.TrainSpec(
        d.graph(),
        d.shards(),
        d.modelDir(),
        d.model(),
        d.hidden(),
        d.layers(),
        d.dropout(),
        d.activation(),
        d.featureNorm(),
        d.lr(),
        d.weightDecay(),
        d.schedule(),
        epochs,
        d.seed(),
        resume,
        d.valShards(),
        threads,
        prefetch,
        d.logEvery(),
        d.verify(),
        cache,
        cacheBytes);
  }

  @Test
  void theBoundIsTheModelStateAndTheFeatureRowsOfTheBatchesKeptReady() {
    int params = 1_000_000;
    long model = 4L * 4 * params;
    long batch = 4L * 50_000 * 1433;
    // 2 threads x (2 + 1) buffers, for this epoch and the next
    assertThat(new TrainMemory(spec(5, 2, 2, false), 1433, shards(), false).leastBytes(params))
        .isEqualTo(model + 12 * batch);
    // one epoch, or a resumed run that may have one left: one loader
    assertThat(new TrainMemory(spec(1, 2, 2, false), 1433, shards(), false).leastBytes(params))
        .isEqualTo(model + 6 * batch);
    assertThat(new TrainMemory(spec(5, 2, 2, true), 1433, shards(), false).leastBytes(params))
        .isEqualTo(model + 6 * batch);
    assertThat(new TrainMemory(spec(5, 2, 2, false), 1433, shards(), true).leastBytes(params))
        .isEqualTo(model + 6 * batch);
    // no more threads than parts, no more buffers than batches in an epoch
    assertThat(new TrainMemory(spec(1, 8, 2, false), 1433, shards(), false).leastBytes(params))
        .isEqualTo(model + 10 * batch);
    assertThat(new TrainMemory(spec(1, 1, 1, false), 1433, shards(), false).leastBytes(params))
        .isEqualTo(model + 2 * batch);
    // a feature cache's rows come on top; policy none holds none
    assertThat(
            new TrainMemory(spec(1, 1, 1, false, "belady", 1L << 30), 1433, shards(), false)
                .leastBytes(params))
        .isEqualTo(model + 2 * batch + (1L << 30));
    assertThat(
            new TrainMemory(spec(1, 1, 1, false, "none", 1L << 30), 1433, shards(), false)
                .leastBytes(params))
        .isEqualTo(model + 2 * batch);
    // zero-copy: the loaders hold no rows; a cache in pinned (off-heap) pages takes no heap
    ModelRuns.TrainSpec zeroCopy =
        spec(1, 1, 1, false, "belady", 1L << 30).withFeatureAccess(ModelRuns.TrainSpec.ZERO_COPY);
    assertThat(new TrainMemory(zeroCopy, 1433, shards(), false, true).leastBytes(params))
        .isEqualTo(model + (1L << 30));
    assertThat(new TrainMemory(zeroCopy, 1433, shards(), false, false).leastBytes(params))
        .isEqualTo(model);
  }

  @Test
  void aRunThatCannotFitIsRefusedNamingHeapBatchAndOptions() {
    TrainMemory m = new TrainMemory(spec(5, 2, 2, false), 1433, shards(), false);
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
        new TrainMemory(spec(5, 2, 2, false), 1433, shards(), false).ranOut(oom, 512 * MIB);
    assertThat(e)
        .hasCause(oom)
        .hasMessageStartingWith("train ran out of Java heap (max heap 512 MiB)")
        .hasMessageContaining("batches of about 50,000 nodes x 1433 features (batches of 1024")
        .hasMessageContaining("a sage model of hidden width 256")
        .hasMessageContaining("FANOUT_JAVA_OPTS=-Xmx1g")
        .hasMessageContaining("--batch-size 512");
  }
}
