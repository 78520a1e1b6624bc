package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Training a one-type model whose input is a learned table ({@link ModelConfig#learnedInput}):
 * bit-identical over loader threads, checkpointed with its sparse Adam state so that a resumed run
 * equals an uninterrupted one, and refused with more than one replica.
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
    return new FeatureTable() {
      @Override
      public int numVertices() {
        return graph.csr.numVertices();
      }

      @Override
      public int dim() {
        return HIDDEN;
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

  @Test
  void moreThanOneReplicaIsRefused() {
    GradientReducer two =
        new GradientReducer() {
          @Override
          public void allReduceMean(float[] gradients, int length) {}

          @Override
          public int worldSize() {
            return 2;
          }

          @Override
          public int rank() {
            return 0;
          }
        };
    try (GnnModel m = new GnnModel(cfg(), new CpuBackend())) {
      assertThatThrownBy(
              () -> new Trainer(m, new TrainOptions(1, 0.01f, 0f, LrSchedule.CONSTANT, 0), two))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("--learned-embeddings")
          .hasMessageContaining("--workers 1");
    }
  }
}
