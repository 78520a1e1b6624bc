package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.nn.GnnModel;
import io.fanout.nn.ModelConfig;
import io.fanout.tensor.Backends;
import java.nio.file.Path;
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
    CoraTraining.fit(d, model, tmp);
    double full = CoraTraining.testAccuracy(d, CoraTraining.logits(d, model));
    assertThat(full).isGreaterThanOrEqualTo(0.79);
    double sampled = CoraTraining.sampledTestAccuracy(d, model);
    assertThat(Math.abs(sampled - full)).isLessThanOrEqualTo(0.01);
  }
}
