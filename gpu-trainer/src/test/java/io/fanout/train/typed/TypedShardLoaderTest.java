package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.typed.SimpleTypedSampler;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.nn.typed.TypedTestGraphs;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.TypedShardSet;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import io.fanout.train.HotBy;
import io.fanout.train.HotReuse;
import io.fanout.train.ReuseBackward;
import io.fanout.train.ReuseRefresh;
import io.fanout.train.TrainCancelledException;
import io.fanout.train.TrainSpec;
import io.fanout.train.WorkerShare;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed training from shards through the pipelined loader ({@link TypedShardLoader}): the model and
 * its checkpoint are bit-identical for every loader thread count and prefetch and equal to reading
 * on the training thread; a damaged part fails naming its file, and no loader thread outlives a
 * failed or cancelled epoch.
 */
class TypedShardLoaderTest {
  private static final ArrayTypedGraph G = TypedTestGraphs.small(3);
  private static final TypedTrainOptions OPTS = new TypedTrainOptions(3, 2, 0.02f, 1e-4f, 5);
  private static final int PARTS = 4;

  @TempDir Path tmp;

  private static final TypedNeighborSampler SAMPLER = TypedTestShards.sampler(G);

  /** 2 sampled epochs of the 16 training papers in batches of 2, as 4 part files of 2 each. */
  private Path shards() throws Exception {
    return TypedTestShards.write(
        G, tmp.resolve("shards"), StoreLayout.SPLIT_TRAIN, 2, PARTS, FeatureEncoding.NONE);
  }

  /** Trains with {@code loading} (null: on the training thread); the parameters and embeddings. */
  private static float[] train(TypedEpochs epochs, Path modelDir, AtomicInteger stopAfter) {
    return train(epochs, modelDir, stopAfter, HotReuse.OFF);
  }

  /** As {@link #train(TypedEpochs, Path, AtomicInteger)}, reusing hot rows' embeddings. */
  private static float[] train(
      TypedEpochs epochs, Path modelDir, AtomicInteger stopAfter, HotReuse reuse) {
    TypedModelConfig cfg =
        TypedModelConfig.of(G.schema(), 0, TypedModelKind.RGCN, 8, 2, 0.2f, 0, EmbeddingMode.AUTO);
    SimpleTypedSampler s = new SimpleTypedSampler(G, 0, new int[] {3, 2}, 9);
    TypedSampler sampler = s::sample;
    try (TypedModel m = new TypedModel(cfg, new CpuBackend());
        TypedTrainer t = new TypedTrainer(m, G, epochs, sampler, OPTS)) {
      t.cancelWhen(() -> stopAfter.getAndDecrement() <= 0);
      t.reuseHot(reuse);
      m.init(OPTS.seed());
      t.fit(modelDir, null);
      return TypedModelState.of(m);
    }
  }

  @Test
  void theModelIsBitIdenticalForEveryLoaderThreadCountAndPrefetch() throws Exception {
    TypedShardSet set = TypedShardSet.open(shards());
    Path syncDir = Files.createDirectories(tmp.resolve("sync"));
    float[] sync =
        train(TypedEpochs.shards(set, true), syncDir, new AtomicInteger(Integer.MAX_VALUE));
    byte[] checkpoint = Files.readAllBytes(syncDir.resolve("checkpoint.bin"));
    for (int[] tk : new int[][] {{1, 1}, {3, 1}, {1, 4}, {3, 4}}) {
      Path dir = Files.createDirectories(tmp.resolve("t" + tk[0] + "-k" + tk[1]));
      float[] piped =
          train(
              TypedEpochs.shards(set, true, new TrainSpec.Loading(tk[0], tk[1])),
              dir,
              new AtomicInteger(Integer.MAX_VALUE));
      assertThat(Arrays.equals(piped, sync))
          .as("loader-threads %d prefetch %d", tk[0], tk[1])
          .isTrue();
      assertThat(Files.readAllBytes(dir.resolve("checkpoint.bin"))).isEqualTo(checkpoint);
    }
    assertThat(loaderThreadsLinger()).isFalse();
  }

  @Test
  void withHotReuseTheLoaderPrunesAndTheModelIsBitIdenticalForEveryLoaderThreadCount()
      throws Exception {
    TypedShardSet set = TypedShardSet.open(shards());
    AtomicInteger all = new AtomicInteger(Integer.MAX_VALUE);
    float[] plain = train(TypedEpochs.shards(set, true), null, all);
    for (HotReuse reuse :
        new HotReuse[] {
          new HotReuse(0.5, 2, HotBy.FREQUENCY, ReuseRefresh.INLINE),
          new HotReuse(0.5, 2, HotBy.FREQUENCY, ReuseRefresh.OVERLAPPED, ReuseBackward.DEFERRED)
        }) {
      float[] sync = train(TypedEpochs.shards(set, true), null, all, reuse);
      assertThat(Arrays.equals(sync, plain)).as("reuse trains another model").isFalse();
      for (int[] tk : new int[][] {{3, 4}}) {
        float[] piped =
            train(
                TypedEpochs.shards(set, true, new TrainSpec.Loading(tk[0], tk[1])),
                null,
                all,
                reuse);
        assertThat(Arrays.equals(piped, sync))
            .as("%s: loader-threads %d prefetch %d", reuse.toMap(), tk[0], tk[1])
            .isTrue();
      }
    }
    assertThat(loaderThreadsLinger()).isFalse();
  }

  /** The batch indices and input rows of {@code epochs}' epoch 1, as the trainer takes them. */
  private static List<String> read(TypedEpochs epochs) {
    TypedModelConfig cfg =
        TypedModelConfig.of(G.schema(), 0, TypedModelKind.RGCN, 8, 2, 0.2f, 0, EmbeddingMode.AUTO);
    List<String> out = new ArrayList<>();
    TypedBatchStream.forEach(
        epochs,
        1,
        b -> TypedFeatures.gather(G, cfg, b),
        () -> false,
        in -> out.add(in.batch().batch() + " " + Arrays.deepToString(in.features())));
    return out;
  }

  @Test
  void aWorkersShareIsLoadedAsOnTheTrainingThread() throws Exception {
    TypedShardSet set = TypedShardSet.open(shards());
    for (int rank = 0; rank < 3; rank++) {
      WorkerShare share = new WorkerShare(rank, 3);
      List<String> sync = read(TypedEpochs.shards(set, false).share(share));
      assertThat(sync).hasSize(2); // 8 batches: groups of 3, the last group of 2 dropped
      assertThat(read(TypedEpochs.shards(set, false, new TrainSpec.Loading(3, 1)).share(share)))
          .as("rank %d", rank)
          .isEqualTo(sync);
    }
  }

  @Test
  void aDamagedPartFailsNamingItAndTheLoaderThreadsStop() throws Exception {
    Path dir = shards();
    TypedShardSet set = TypedShardSet.open(dir);
    Path damaged = set.file(0, 2);
    byte[] bytes = Files.readAllBytes(damaged);
    bytes[bytes.length / 2] ^= 0x5A;
    Files.write(damaged, bytes);
    TypedEpochs epochs = TypedEpochs.shards(set, true, new TrainSpec.Loading(3, 2));
    assertThatThrownBy(() -> train(epochs, null, new AtomicInteger(Integer.MAX_VALUE)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(damaged.getFileName().toString());
    assertThat(loaderThreadsLinger()).isFalse();
    // unverified, a truncated part fails when it is read, naming it too
    Files.write(damaged, Arrays.copyOf(bytes, bytes.length / 3));
    TypedEpochs unverified = TypedEpochs.shards(set, false, new TrainSpec.Loading(2, 1));
    assertThatThrownBy(() -> train(unverified, null, new AtomicInteger(Integer.MAX_VALUE)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(damaged.getFileName().toString());
    assertThat(loaderThreadsLinger()).isFalse();
  }

  @Test
  void aCancelledEpochStopsTheLoaderThreads() throws Exception {
    TypedShardSet set = TypedShardSet.open(shards());
    TypedEpochs epochs = TypedEpochs.shards(set, false, new TrainSpec.Loading(2, 1));
    assertThatThrownBy(() -> train(epochs, null, new AtomicInteger(3)))
        .isInstanceOf(TrainCancelledException.class);
    assertThat(loaderThreadsLinger()).isFalse();
  }

  @Test
  void valShardsScoreTheirBatchesAsSamplingTheSameSeedsDoes() throws Exception {
    TypedShardSet set = TypedShardSet.open(shards());
    TypedEpochs val =
        TypedEpochs.shards(
            TypedShardSet.open(TypedTestShards.val(G, tmp.resolve("val"))),
            true,
            new TrainSpec.Loading(2, 1));
    TypedModelConfig cfg =
        TypedModelConfig.of(G.schema(), 0, TypedModelKind.RGCN, 8, 2, 0.2f, 0, EmbeddingMode.AUTO);
    try (TypedModel m = new TypedModel(cfg, new CpuBackend());
        TypedTrainer t =
            new TypedTrainer(
                m, G, TypedEpochs.shards(set, false), TypedSampler.of(SAMPLER), OPTS)) {
      m.init(OPTS.seed());
      F1Scores fit = t.validateOn(val).fit(null, null).lastVal();
      F1Scores shards = TypedEvaluation.scores(m, G, val, OPTS.seed());
      F1Scores sampled =
          TypedEvaluation.scores(
              m,
              G,
              TypedSampler.of(SAMPLER),
              SAMPLER.order(StoreLayout.SPLIT_VAL, 0),
              2,
              OPTS.seed());
      assertThat(shards.metrics()).isEqualTo(sampled.metrics()).isEqualTo(fit.metrics());
      assertThat(shards.toString()).isEqualTo(sampled.toString());
    }
  }

  /** Waits a moment for finished threads to leave the thread table; whether one is still alive. */
  private static boolean loaderThreadsLinger() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (loaderThreadAlive() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    return loaderThreadAlive();
  }

  private static boolean loaderThreadAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.isAlive() && t.getName().startsWith("fanout-typed-"));
  }
}
