package io.fanout.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.nn.ActivationKind;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelKind;
import io.fanout.tensor.CheckingBackend;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.GradientReducer;
import io.fanout.train.ModelEvaluation;
import io.fanout.train.ModelInference;
import io.fanout.train.TrainCancelledException;
import io.fanout.train.TrainRun;
import io.fanout.train.TrainSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Train, evaluate and infer release their model and backend when they end: on the checking backend
 * (whose {@code close} fails while a tensor, host buffer or feature-row mapping is still open)
 * every backend a run created is closed afterwards, also when training is cancelled; {@code
 * afterFit} sees the trained model before it is released.
 */
class RunsReleaseBackendTest {
  @TempDir static Path tmp;
  static Path store;
  static Path shards;
  private String previous;

  @BeforeAll
  static void fixtures() throws Exception {
    TrainFixtures.Graph g = TrainFixtures.graph(17, 200, 6);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, g);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, g, new int[] {3, 3}, 8, 2, 2);
  }

  /**
   * evaluate and infer take the {@code auto} backend, which this property makes the checked one.
   */
  @BeforeEach
  void checkedBackend() {
    previous = System.getProperty("fanout.backend");
    System.setProperty("fanout.backend", "cpu-checked");
  }

  @AfterEach
  void restore() {
    if (previous == null) {
      System.clearProperty("fanout.backend");
    } else {
      System.setProperty("fanout.backend", previous);
    }
  }

  static TrainSpec spec(String name, String access) {
    return TrainSpec.builder(store, shards, tmp.resolve(name))
        .inputs(i -> i.withValShards(shards))
        .architecture(
            new TrainSpec.Architecture(
                ModelKind.SAGE,
                8,
                0,
                0.5f,
                ActivationKind.RELU,
                FeatureNormKind.NONE,
                DecoderKind.DOT))
        .optimization(new TrainSpec.Optimization(0.01f, 5e-4f, LrSchedule.CONSTANT, 2, 1L))
        .loading(new TrainSpec.Loading(1, 1))
        .features(f -> f.withAccess(FeatureAccessMode.parse(access)))
        .build();
  }

  @Test
  void trainEvaluateAndInferCloseEveryBackendTheyOpen() {
    long open = CheckingBackend.openBackends();
    List<Integer> seen = new ArrayList<>();
    GnnModel[] trained = new GnnModel[1];
    for (String access : List.of("gather", "zero-copy")) {
      TrainRun.train(
          spec(access, access),
          null,
          model -> GradientReducer.LOCAL,
          false,
          () -> false,
          model -> {
            assertThat(model.backend()).isInstanceOf(CheckingBackend.class);
            seen.add(model.params().length); // open: the parameters can still be read
            trained[0] = model;
          });
      assertThat(CheckingBackend.openBackends()).as("after train, " + access).isEqualTo(open);
    }
    assertThat(seen).hasSize(2).allMatch(n -> n > 0);
    assertThatThrownBy(() -> trained[0].params())
        .as("the model is freed after train")
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("freed tensor");

    Path model = tmp.resolve("gather");
    assertThat(ModelEvaluation.accuracy(store, model, null, 0, 0L)).containsKey("test");
    assertThat(ModelEvaluation.accuracy(store, model, new int[] {3, 3}, 16, 0L))
        .containsKey("test");
    assertThat(CheckingBackend.openBackends()).as("after evaluate").isEqualTo(open);

    ModelInference.Outcome o =
        ModelInference.infer(
            new ModelInference.Request(
                store,
                model,
                tmp.resolve("pred"),
                tmp.resolve("emb"),
                new int[] {3, 3},
                16,
                0L,
                false));
    assertThat(o.rows()).isEqualTo(200);
    assertThat(CheckingBackend.openBackends()).as("after infer").isEqualTo(open);
  }

  @Test
  void aCancelledTrainingReleasesItsBackendToo() {
    long open = CheckingBackend.openBackends();
    assertThatThrownBy(
            () ->
                TrainRun.train(
                    spec("cancelled", "zero-copy"),
                    null,
                    model -> GradientReducer.LOCAL,
                    false,
                    () -> true))
        .isInstanceOf(TrainCancelledException.class)
        .satisfies(e -> assertThat(e.getSuppressed()).as("failures releasing the run").isEmpty());
    assertThat(CheckingBackend.openBackends()).isEqualTo(open);
  }
}
