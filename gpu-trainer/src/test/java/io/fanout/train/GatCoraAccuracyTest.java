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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
