package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainerTest {
  static TestData graph;

  @TempDir Path tmp;

  @BeforeAll
  static void load() {
    graph = TestData.random(600, 5, 12, 7);
  }

  static ModelConfig cfg(String kind) {
    return new ModelConfig(kind, 12, 16, 3, 2, 0.5f, "relu", "l2");
  }

  static TrainOptions opts(int epochs, long seed) {
    return new TrainOptions(epochs, 0.01f, 5e-4f, LrSchedule.COSINE, seed);
  }

  static SampledEpochs data(long seed, int threads) {
    return new SampledEpochs(
        graph.csr,
        graph.vertices,
        graph.features,
        graph.vertices.ofSplit(StoreLayout.SPLIT_TRAIN),
        new int[] {5, 3},
        32,
        seed,
        true,
        FeatureNormKind.L2,
        threads);
  }

  static Trainer trainer(String kind, int epochs, long seed) {
    return new Trainer(
        new GnnModel(cfg(kind), new CpuBackend()), opts(epochs, seed), GradientReducer.LOCAL);
  }

  @Test
  void shuffledEpochsFollowTheSamplersSeedOrder() {
    SampledEpochs d = data(5, 1);
    for (int epoch = 0; epoch < 3; epoch++) {
      assertThat(d.order(epoch))
          .isEqualTo(
              io.fanout.sample.SeedOrder.order(graph.vertices, StoreLayout.SPLIT_TRAIN, 5, epoch));
    }
    assertThat(d.order(0)).isNotEqualTo(d.order(1));
  }

  @Test
  void lossDecreasesAndBothModelsLearn() {
    for (String kind : new String[] {"sage", "gcn"}) {
      Trainer t = trainer(kind, 12, 1);
      List<EpochStats> s = t.fit(data(1, 2), null, tmp.resolve(kind), false, Map.of(), null, 0);
      assertThat(s).hasSize(12);
      assertThat(s.get(11).loss()).as(kind).isLessThan(s.get(0).loss() * 0.8);
      float[] logits = FullGraphInference.logits(t.model(), graph.csr, graph.features, 100);
      assertThat(Evaluation.accuracy(logits, 3, graph.vertices, StoreLayout.SPLIT_TEST).value())
          .as(kind)
          .isGreaterThan(0.6);
    }
  }

  @Test
  void theEpochOfBestValidationAccuracyIsKeptForInference() throws IOException {
    SampledEpochs val =
        new SampledEpochs(
            graph.csr,
            graph.vertices,
            graph.features,
            graph.vertices.ofSplit(StoreLayout.SPLIT_VAL),
            new int[] {5, 3},
            64,
            4,
            false,
            FeatureNormKind.L2,
            1);
    Path dir = tmp.resolve("validated");
    Trainer t = trainer("sage", 8, 4);
    List<float[]> afterEpoch = new java.util.ArrayList<>();
    t.fit(
        data(4, 1),
        val,
        dir,
        false,
        Map.of(),
        new TrainProgress() {
          @Override
          public void epochEnded(EpochStats stats, int epochs, Accuracy validation) {
            afterEpoch.add(t.model().params().clone());
          }
        });
    assertThat(afterEpoch).hasSize(8);
    List<String> lines = Files.readAllLines(dir.resolve(ModelDirFiles.METRICS));
    assertThat(lines).hasSize(8);
    int best = 0;
    double bestAccuracy = -1;
    for (int e = 0; e < lines.size(); e++) {
      double a =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readTree(lines.get(e))
              .get("val_accuracy")
              .asDouble();
      if (a > bestAccuracy) {
        bestAccuracy = a;
        best = e;
      }
    }
    assertThat(Checkpoint.read(dir).epochs()).isEqualTo(8);
    assertThat(Checkpoint.read(dir, Checkpoint.BEST).epochs()).isEqualTo(best + 1);
    assertThat(Checkpoint.inferenceFile(dir, CheckpointPick.BEST))
        .isEqualTo(dir.resolve(Checkpoint.BEST));
    assertThat(Checkpoint.readForInference(dir, CheckpointPick.BEST).epochs()).isEqualTo(best + 1);
    assertThat(Checkpoint.readForInference(dir).epochs()).as("the default: last").isEqualTo(8);
    // The parameters of that epoch and of the last one, bit for bit.
    assertThat(Checkpoint.read(dir, Checkpoint.BEST).params()).isEqualTo(afterEpoch.get(best));
    assertThat(Checkpoint.read(dir).params()).isEqualTo(afterEpoch.get(7));
    assertThat(best).as("a run whose best epoch is not the last tells them apart").isLessThan(7);
  }

  @Test
  void theBestCheckpointOfAModelTrainedWithoutValidationIsAClearError() {
    Path dir = tmp.resolve("unvalidated");
    trainer("sage", 1, 4).fit(data(4, 1), null, dir, false, Map.of(), null, 0);
    assertThat(Checkpoint.readForInference(dir).epochs()).isEqualTo(1);
    assertThatThrownBy(() -> Checkpoint.readForInference(dir, CheckpointPick.BEST))
        .isInstanceOf(io.fanout.store.InvalidInputException.class)
        .hasMessageContaining("best.bin")
        .hasMessageContaining("val-shards")
        .hasMessageContaining("'last'");
  }

  @Test
  void cancelledFitStopsBeforeTheNextBatchKeepsCompleteCheckpointsAndResumesBitIdentically()
      throws IOException {
    int perEpoch = (graph.vertices.ofSplit(StoreLayout.SPLIT_TRAIN).length + 31) / 32;
    Path dir = tmp.resolve("cancelled");
    java.util.concurrent.atomic.AtomicInteger checks =
        new java.util.concurrent.atomic.AtomicInteger();
    // Two epochs and one batch run; the check before the second batch of epoch 2 cancels.
    Trainer t = trainer("sage", 5, 9).cancelWhen(() -> checks.incrementAndGet() > 2 * perEpoch + 1);
    assertThatThrownBy(() -> t.fit(data(9, 2), null, dir, false, Map.of(), null, 0))
        .isInstanceOf(TrainCancelledException.class)
        .hasMessageContaining("epoch 2 after 1 batch");
    assertThat(checks.get()).isEqualTo(2 * perEpoch + 2);
    assertThat(Checkpoint.read(dir).epochs()).isEqualTo(2);
    try (var files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .containsExactlyInAnyOrder(Checkpoint.FILE, ModelDirFiles.METRICS);
    }
    assertThat(Files.readAllLines(dir.resolve(ModelDirFiles.METRICS))).hasSize(2);

    Trainer resumed = trainer("sage", 5, 9);
    assertThat(resumed.fit(data(9, 2), null, dir, true, Map.of(), null, 0)).hasSize(3);
    Trainer whole = trainer("sage", 5, 9);
    whole.fit(data(9, 2), null, tmp.resolve("whole"), false, Map.of(), null, 0);
    assertThat(resumed.model().params()).isEqualTo(whole.model().params());
  }

  @Test
  void aRunThatFailsBeforeItsFirstEpochEndsLeavesNoModelDir() {
    Path dir = tmp.resolve("never");
    TrainProgress outOfHeap =
        new TrainProgress() {
          @Override
          public void batchDone(Batch batch) {
            throw new OutOfMemoryError("injected");
          }
        };
    assertThatThrownBy(
            () -> trainer("sage", 2, 3).fit(data(3, 1), null, dir, false, Map.of(), outOfHeap))
        .isInstanceOf(OutOfMemoryError.class);
    assertThat(dir).doesNotExist();
  }

  @Test
  void sameSeedGivesBitIdenticalParametersWhateverTheLoaderThreads() {
    Trainer a = trainer("sage", 3, 5);
    a.fit(data(5, 1), null, tmp.resolve("a"), false, Map.of(), null, 0);
    Trainer b = trainer("sage", 3, 5);
    b.fit(data(5, 3), null, tmp.resolve("b"), false, Map.of(), null, 0);
    assertThat(b.model().params()).isEqualTo(a.model().params());
    Trainer c = trainer("sage", 3, 6);
    c.fit(data(6, 1), null, tmp.resolve("c"), false, Map.of(), null, 0);
    assertThat(c.model().params()).isNotEqualTo(a.model().params());
  }

  @Test
  void resumeGivesTheSameModelAsAnUninterruptedRun() throws IOException {
    Trainer full = trainer("sage", 4, 2);
    full.fit(data(2, 2), null, tmp.resolve("full"), false, Map.of("graph", "g1"), null, 0);

    Path dir = tmp.resolve("cut");
    SampledEpochs d = data(2, 2);
    EpochData crashAt2 =
        e -> {
          if (e == 2) {
            throw new IllegalStateException("simulated crash");
          }
          return d.open(e);
        };
    assertThatThrownBy(
            () ->
                trainer("sage", 4, 2)
                    .fit(crashAt2, null, dir, false, Map.of("graph", "g1"), null, 0))
        .hasMessageContaining("simulated crash");
    assertThat(Checkpoint.read(dir).epochs()).isEqualTo(2);
    assertThat(Files.readAllLines(dir.resolve(ModelDirFiles.METRICS))).hasSize(2);

    assertThatThrownBy(
            () -> trainer("sage", 4, 2).fit(d, null, dir, false, Map.of("graph", "g1"), null, 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--resume");
    assertThatThrownBy(
            () -> trainer("sage", 4, 2).fit(d, null, dir, true, Map.of("graph", "other"), null, 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("identity.graph");
    assertThatThrownBy(
            () -> trainer("gcn", 4, 2).fit(d, null, dir, true, Map.of("graph", "g1"), null, 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("model.kind");

    Trainer resumed = trainer("sage", 4, 2);
    List<EpochStats> s = resumed.fit(d, null, dir, true, Map.of("graph", "g1"), null, 0);
    assertThat(s).extracting(EpochStats::epoch).containsExactly(2, 3);
    assertThat(resumed.model().params()).isEqualTo(full.model().params());
    assertThat(Checkpoint.read(dir).params()).isEqualTo(full.model().params());
    assertThat(Files.readAllLines(dir.resolve(ModelDirFiles.METRICS))).hasSize(4);
  }

  @Test
  void aCrashAtEveryCheckpointRenameLeavesACompleteCheckpointAndResumesBitIdentically()
      throws IOException {
    Trainer full = trainer("sage", 3, 4);
    full.fit(data(4, 1), null, tmp.resolve("full"), false, Map.of("graph", "g1"), null, 0);
    for (int crashAt = 1; crashAt <= 3; crashAt++) {
      Path dir = tmp.resolve("crash-" + crashAt);
      int[] renames = {0};
      int target = crashAt;
      io.fanout.store.AtomicFilesFaults.beforeRename(
          p -> {
            if (p.getFileName().toString().equals(Checkpoint.FILE) && ++renames[0] == target) {
              throw new IllegalStateException("killed before renaming " + p);
            }
          });
      try {
        assertThatThrownBy(
                () ->
                    trainer("sage", 3, 4)
                        .fit(data(4, 1), null, dir, false, Map.of("graph", "g1"), null, 0))
            .hasMessageContaining("killed before renaming");
      } finally {
        io.fanout.store.AtomicFilesFaults.clear();
      }
      // The last complete checkpoint is the previous epoch's, whole; no torn file is left.
      if (crashAt == 1) {
        assertThat(Checkpoint.exists(dir)).isFalse();
      } else {
        assertThat(Checkpoint.read(dir).epochs()).isEqualTo(crashAt - 1);
      }
      Trainer resumed = trainer("sage", 3, 4);
      resumed.fit(data(4, 1), null, dir, crashAt > 1, Map.of("graph", "g1"), null, 0);
      assertThat(resumed.model().params()).isEqualTo(full.model().params());
      assertThat(Files.readAllLines(dir.resolve(ModelDirFiles.METRICS))).hasSize(3);
    }
  }

  @Test
  void corruptCheckpointIsRejected() throws IOException {
    Path dir = tmp.resolve("k");
    Checkpoint.write(dir, Map.of("a", "b"), 1, 3, new float[] {1, 2}, new float[2], new float[2]);
    assertThat(Checkpoint.read(dir).params()).containsExactly(1f, 2f);
    byte[] bytes = Files.readAllBytes(Checkpoint.file(dir));
    bytes[bytes.length - 1] ^= 1;
    Files.write(Checkpoint.file(dir), bytes);
    assertThatThrownBy(() -> Checkpoint.read(dir)).hasMessageContaining("CRC32C");
    Files.write(Checkpoint.file(dir), new byte[10]);
    assertThatThrownBy(() -> Checkpoint.read(dir)).hasMessageContaining("not a Fanout checkpoint");
  }

  @Test
  void loaderKeepsPartOrderAndGathersFeatures() {
    List<Integer> one = batchOrder(1);
    assertThat(batchOrder(3)).isEqualTo(one);
    assertThat(one).hasSize((graph.vertices.ofSplit(StoreLayout.SPLIT_TRAIN).length + 31) / 32);
    try (BatchStream s = data(1, 2).open(0)) {
      TrainBatch b = s.next();
      int v = b.batch().nodes()[3];
      float[] row = new float[12];
      graph.features.gather(new int[] {v}, 0, 1, row, 0);
      FeatureNorm.apply(FeatureNormKind.L2, row, 1, 12);
      for (int j = 0; j < 12; j++) {
        assertThat(b.features()[3 * 12 + j]).isEqualTo(row[j]);
      }
    }
  }

  private static List<Integer> batchOrder(int threads) {
    List<Integer> out = new ArrayList<>();
    try (BatchStream s = data(1, threads).open(0)) {
      TrainBatch b;
      while ((b = s.next()) != null) {
        out.add(b.batch().batch());
        s.recycle(b);
      }
    }
    return out;
  }

  @Test
  void emptyEpochAndMismatchedDimensionFailClearly() {
    Trainer t = trainer("sage", 1, 1);
    assertThatThrownBy(
            () ->
                t.trainEpoch(
                    0,
                    new BatchStream() {
                      @Override
                      public TrainBatch next() {
                        return null;
                      }
                    },
                    0.01f,
                    null,
                    0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no batches");
    Trainer wide =
        new Trainer(
            new GnnModel(
                new ModelConfig("sage", 13, 8, 3, 2, 0f, "relu", "none"), new CpuBackend()),
            opts(1, 1),
            GradientReducer.LOCAL);
    assertThatThrownBy(() -> wide.fit(data(1, 1), null, tmp.resolve("w"), false, Map.of(), null, 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("dimension 12")
        .hasMessageContaining("expects 13");
  }
}
