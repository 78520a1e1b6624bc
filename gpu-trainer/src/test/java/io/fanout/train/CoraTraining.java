package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.nn.GnnModel;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Cora trained and measured as the accuracy tests do it, whatever the model and backend: the
 * default optimiser, schedule, fanouts and batch size on the train split, and test accuracy by
 * full-neighbor and by sampled inference.
 */
final class CoraTraining {
  private CoraTraining() {}

  /**
   * Trains {@code model} on {@code d}'s train split with the defaults, checkpointing into {@code
   * dir}, and checks that the last epoch's loss is under half the first's; the trainer, to close.
   */
  static Trainer fit(TestData d, GnnModel model, Path dir) throws Exception {
    TrainOptions opts =
        new TrainOptions(
            Defaults.EPOCHS,
            (float) Defaults.LR,
            (float) Defaults.WEIGHT_DECAY,
            Defaults.SCHEDULE,
            0);
    Trainer t = new Trainer(model, opts, GradientReducer.LOCAL);
    SampledEpochs train =
        new SampledEpochs(
            d.csr,
            d.vertices,
            d.features,
            d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN),
            Defaults.FANOUTS,
            Defaults.BATCH_SIZE,
            0,
            true,
            model.config().featureNorm(),
            2);
    List<EpochStats> stats = t.fit(train, null, dir, false, Map.of(), null, 0);
    assertThat(stats.get(stats.size() - 1).loss()).isLessThan(stats.get(0).loss() * 0.5);
    return t;
  }

  /** Full-neighbor inference's logits of every vertex. */
  static float[] logits(TestData d, GnnModel model) {
    return FullGraphInference.logits(model, d.csr, d.features, 1000);
  }

  /** Test accuracy of {@code logits}. */
  static double testAccuracy(TestData d, float[] logits) {
    return Evaluation.accuracy(logits, d.classes, d.vertices, StoreLayout.SPLIT_TEST).value();
  }

  /** Test accuracy of sampled inference: the default inference fanout at every layer. */
  static double sampledTestAccuracy(TestData d, GnnModel model) throws Exception {
    int[] f = new int[model.config().layers()];
    Arrays.fill(f, Defaults.INFERENCE_FANOUT);
    SampledEpochs test =
        new SampledEpochs(
            d.csr,
            d.vertices,
            d.features,
            d.vertices.ofSplit(StoreLayout.SPLIT_TEST),
            f,
            1024,
            1,
            false,
            model.config().featureNorm(),
            2);
    try (BatchStream s = test.open(0)) {
      return Evaluation.accuracy(model, s).value();
    }
  }
}
