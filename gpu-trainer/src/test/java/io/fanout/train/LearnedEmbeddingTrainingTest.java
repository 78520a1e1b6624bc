package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.dist.MeshAllReduce;
import io.fanout.dist.MeshReplicas;
import io.fanout.graph.FeatureTable;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Training a one-type model whose input is a learned table ({@link ModelConfig#learnedInput}):
 * bit-identical over loader threads, checkpointed with its sparse Adam state so that a resumed run
 * equals an uninterrupted one, and data-parallel with its rows' gradients reduced
 * deterministically.
 */
class LearnedEmbeddingTrainingTest {
  static TestData graph;
  static final int HIDDEN = 8;

  @TempDir Path tmp;

  @BeforeAll
  static void load() {
    graph = TestData.random(300, 5, 4, 7);
  }

  static ModelConfig cfg() {
    return new ModelConfig("sage", HIDDEN, HIDDEN, 3, 2, 0.3f, "relu", "none")
        .withEmbeddingRows(graph.csr.numVertices());
  }

  /** Only the width of the batches' inputs: the trainer reads the rows from its table. */
  static FeatureTable widthOnly() {
    return width(graph, HIDDEN);
  }

  /** Only a width, for batches whose input rows come from a model's table. */
  static FeatureTable width(TestData d, int dim) {
    return new FeatureTable() {
      @Override
      public int numVertices() {
        return d.csr.numVertices();
      }

      @Override
      public int dim() {
        return dim;
      }

      @Override
      public void gather(int[] ids, int from, int count, float[] out, int outOffset) {
        throw new AssertionError("a learned input's rows come from the model's table");
      }
    };
  }

  static SampledEpochs data(int threads) {
    return new SampledEpochs(
            graph.csr,
            graph.vertices,
            widthOnly(),
            graph.vertices.ofSplit(StoreLayout.SPLIT_TRAIN),
            new int[] {5, 3},
            32,
            3,
            true,
            FeatureNormKind.NONE,
            threads)
        .gather(false);
  }

  static Trainer trainer(int epochs) {
    return new Trainer(
        new GnnModel(cfg(), new CpuBackend()),
        new TrainOptions(epochs, 0.01f, 5e-4f, LrSchedule.CONSTANT, 5),
        GradientReducer.LOCAL);
  }

  static float[] table(Trainer t) {
    FeatureTable rows = ModelInputRows.of(t.model().embeddings());
    int n = rows.numVertices();
    int[] ids = new int[n];
    java.util.Arrays.setAll(ids, i -> i);
    float[] x = new float[n * rows.dim()];
    rows.gather(ids, 0, n, x, 0);
    return x;
  }

  @Test
  void bitIdenticalOverLoaderThreads() {
    Trainer one = trainer(3);
    one.fit(data(1), null, tmp.resolve("one"), false, Map.of(), null, 0);
    Trainer three = trainer(3);
    three.fit(data(3), null, tmp.resolve("three"), false, Map.of(), null, 0);
    assertThat(three.model().params()).isEqualTo(one.model().params());
    assertThat(table(three)).isEqualTo(table(one));
    assertThat(three.model().embeddings().step()).isEqualTo(one.model().embeddings().step());
    assertThat(table(one)).as("the table trained").isNotEqualTo(table(trainer(3).model()));
  }

  private static float[] table(GnnModel fresh) {
    fresh.init(5);
    FeatureTable rows = ModelInputRows.of(fresh.embeddings());
    int[] ids = new int[rows.numVertices()];
    java.util.Arrays.setAll(ids, i -> i);
    float[] x = new float[ids.length * rows.dim()];
    rows.gather(ids, 0, ids.length, x, 0);
    return x;
  }

  @Test
  void aResumedRunEqualsAnUninterruptedOneAndInferenceReadsTheTable() {
    Path straight = tmp.resolve("straight");
    Trainer all = trainer(4);
    all.fit(data(2), null, straight, false, Map.of(), null, 0);
    assertThat(straight.resolve("checkpoint.emb-0.bin")).exists();

    Path resumed = tmp.resolve("resumed");
    trainer(2).fit(data(2), null, resumed, false, Map.of(), null, 0);
    Trainer rest = trainer(4);
    rest.fit(data(2), null, resumed, true, Map.of(), null, 0);
    assertThat(rest.model().params()).isEqualTo(all.model().params());
    assertThat(table(rest)).isEqualTo(table(all));
    assertThat(rest.model().embeddings().step()).isEqualTo(all.model().embeddings().step());

    // The checkpoint's config records the table; loading it reads the rows back.
    Checkpoint ck = Checkpoint.read(straight);
    assertThat(ck.modelConfig()).isEqualTo(cfg());
    try (GnnModel loaded = new GnnModel(ck.modelConfig(), new CpuBackend())) {
      loaded.loadParams(ck.params());
      ModelDirFiles.readEmbeddings(straight, ck, loaded);
      FeatureTable rows = ModelInputRows.of(loaded.embeddings());
      int[] ids = new int[rows.numVertices()];
      java.util.Arrays.setAll(ids, i -> i);
      float[] x = new float[ids.length * HIDDEN];
      rows.gather(ids, 0, ids.length, x, 0);
      assertThat(x).isEqualTo(table(all));
      float[] logits =
          FullGraphInference.logits(loaded, graph.csr, ModelInputRows.of(loaded.embeddings()), 64);
      float[] same =
          FullGraphInference.logits(
              all.model(), graph.csr, ModelInputRows.of(all.model().embeddings()), 64);
      assertThat(logits).isEqualTo(same);
    }
  }

  @Test
  void theBestEpochKeepsItsOwnTable() {
    Path dir = tmp.resolve("best");
    SampledEpochs val =
        new SampledEpochs(
                graph.csr,
                graph.vertices,
                widthOnly(),
                graph.vertices.ofSplit(StoreLayout.SPLIT_VAL),
                new int[] {5, 3},
                64,
                3,
                false,
                FeatureNormKind.NONE,
                1)
            .gather(false);
    trainer(3).fit(data(1), val, dir, false, Map.of(), null, 0);
    Checkpoint best = Checkpoint.read(dir, Checkpoint.BEST);
    assertThat(best.name()).isEqualTo(Checkpoint.BEST);
    assertThat(dir.resolve("best.emb-0.bin")).exists();
    try (GnnModel m = new GnnModel(best.modelConfig(), new CpuBackend())) {
      ModelDirFiles.readEmbeddings(dir, best, m);
      assertThat(m.embeddings().step()).isPositive();
    }
  }

  @Test
  void aTornTableIsAClearError() throws Exception {
    Path dir = tmp.resolve("torn");
    trainer(1).fit(data(1), null, dir, false, Map.of(), null, 0);
    Path f = dir.resolve("checkpoint.emb-0.bin");
    byte[] b = Files.readAllBytes(f);
    Files.write(f, java.util.Arrays.copyOf(b, b.length - 4));
    Checkpoint ck = Checkpoint.read(dir);
    try (GnnModel m = new GnnModel(ck.modelConfig(), new CpuBackend())) {
      assertThatThrownBy(() -> ModelDirFiles.readEmbeddings(dir, ck, m))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("checkpoint.emb-0.bin")
          .hasMessageContaining("truncated");
    }
  }

  /**
   * Two replicas over {@link MeshAllReduce}: fed the same batches, the mean of their equal
   * gradients is each one's, so they train the single-replica model bit for bit, table included;
   * fed each its share of the batches, their tables stay identical.
   */
  @Test
  void replicasReduceTheRowGradientsDeterministically() throws Exception {
    Trainer single = trainer(2);
    single.fit(data(1), null, tmp.resolve("single"), false, Map.of(), null, 0);
    Trainer[] same = twoReplicas(false);
    for (Trainer t : same) {
      assertThat(t.model().params()).isEqualTo(single.model().params());
      assertThat(table(t)).isEqualTo(table(single));
    }
    Trainer[] shared = twoReplicas(true);
    assertThat(table(shared[1])).isEqualTo(table(shared[0]));
    assertThat(shared[1].model().params()).isEqualTo(shared[0].model().params());
    assertThat(table(shared[0])).isNotEqualTo(table(single));
  }

  private Trainer[] twoReplicas(boolean sharded) throws Exception {
    int workers = 2;
    List<Trainer> ts =
        MeshReplicas.run(
            workers,
            9L,
            300,
            (ar, rank) -> {
              Path dir = tmp.resolve((sharded ? "sharded-" : "same-") + rank);
              Trainer t =
                  new Trainer(
                      new GnnModel(cfg(), new CpuBackend()),
                      new TrainOptions(2, 0.01f, 5e-4f, LrSchedule.CONSTANT, 5),
                      ar);
              EpochData d = sharded ? new ShardedEpochData(data(1), rank, workers) : data(1);
              t.fit(d, null, dir, false, Map.of(), null, 0);
              return t;
            });
    return ts.toArray(new Trainer[0]);
  }
}
