package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.nn.ActivationKind;
import io.fanout.nn.AttentionConfig;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.GnnModel;
import io.fanout.nn.ModelConfig;
import io.fanout.nn.ModelKind;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GAT ({@code --model gat}) end to end on the real cora dataset with the documented settings (the
 * defaults with {@code --hidden 64 --dropout 0.6 --activation elu}): the loss falls, test accuracy
 * meets the floor, sampled inference agrees with full-neighbor inference, and the checkpoint
 * rebuilds the same model.
 */
class GatCoraAccuracyTest {
  @TempDir Path tmp;

  @Test
  void gatReachesTheAccuracyFloor() throws Exception {
    TestData d = TestData.load("cora");
    ModelConfig cfg =
        new ModelConfig(
            ModelKind.GAT,
            d.features.dim(),
            64,
            d.classes,
            Defaults.FANOUTS.length,
            0.6f,
            ActivationKind.ELU,
            Defaults.FEATURE_NORM,
            DecoderKind.DOT,
            // as the trainer resolves the default residual (auto): cora has 20 seeds per class
            AttentionConfig.DEFAULT.resolve(
                d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN).length, d.classes));
    GnnModel model = new GnnModel(cfg, new CpuBackend());
    CoraTraining.fit(d, model, tmp);
    float[] logits = CoraTraining.logits(d, model);
    double full = CoraTraining.testAccuracy(d, logits);
    assertThat(full).isGreaterThanOrEqualTo(0.79);
    double sampled = CoraTraining.sampledTestAccuracy(d, model);
    assertThat(Math.abs(sampled - full)).isLessThanOrEqualTo(0.01);

    // the checkpoint names the architecture, heads and slope included, and rebuilds the model
    Checkpoint saved = Checkpoint.readForInference(tmp);
    assertThat(saved.modelConfig()).isEqualTo(cfg);
    try (GnnModel again = new GnnModel(saved.modelConfig(), new CpuBackend())) {
      again.loadParams(saved.params());
      float[] logits2 = FullGraphInference.logits(again, d.csr, d.features, 1000);
      assertThat(logits2).containsExactly(logits);
    }
  }
}
