package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.nn.GnnModel;
import io.fanout.nn.ModelConfig;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.Backends;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end on the real cora dataset (read straight from its Parquet files) with the default
 * hyperparameters: the loss falls, test accuracy meets the floor, and sampled inference agrees with
 * full-neighbor inference.
 */
class CoraAccuracyTest {
  @TempDir Path tmp;

  @Test
  void defaultsReachTheAccuracyFloor() throws Exception {
    TestData d = TestData.load("cora");
    ModelConfig cfg =
        new ModelConfig(
            Defaults.MODEL.id(),
            d.features.dim(),
            Defaults.HIDDEN,
            d.classes,
            Defaults.FANOUTS.length,
            (float) Defaults.DROPOUT,
            Defaults.ACTIVATION.id(),
            Defaults.FEATURE_NORM.id());
    GnnModel model = new GnnModel(cfg, Backends.select());
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
            cfg.featureNorm(),
            2);
    List<EpochStats> stats = t.fit(train, null, tmp, false, Map.of(), null, 0);
    assertThat(stats.get(stats.size() - 1).loss()).isLessThan(stats.get(0).loss() * 0.5);

    float[] logits = FullGraphInference.logits(model, d.csr, d.features, 1000);
    double full =
        Evaluation.accuracy(logits, d.classes, d.vertices, StoreLayout.SPLIT_TEST).value();
    assertThat(full).isGreaterThanOrEqualTo(0.79);

    int[] f = new int[cfg.layers()];
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
            cfg.featureNorm(),
            2);
    double sampled;
    try (BatchStream s = test.open(0)) {
      sampled = Evaluation.accuracy(model, s).value();
    }
    assertThat(Math.abs(sampled - full)).isLessThanOrEqualTo(0.01);
  }
}
