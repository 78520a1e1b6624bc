package io.fanout.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fanout.tensor.CounterRng;
import io.fanout.tensor.CpuBackend;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The gat residual ({@link AttentionConfig#residual}): its output is the attention layer's plus
 * {@code x_dst W_res}, its weight follows the layer's other parameters, and the checkpoint map
 * names it only when on, so a map written without it rebuilds a model without it.
 */
class GatResidualTest {
  private static ModelConfig oneLayer(boolean residual) {
    return new ModelConfig(
        ModelKind.GAT,
        5,
        6,
        3,
        1,
        0f,
        ActivationKind.ELU,
        FeatureNormKind.NONE,
        DecoderKind.DOT,
        new AttentionConfig(3, 0.2f, 0f, residual));
  }

  @Test
  void theResidualAddsTheProjectedInputOfEachDestination() {
    Block b = GradientCheckTest.blocks()[0]; // 9 destinations, 16 sources
    float[] x = new float[16 * 5];
    for (int i = 0; i < x.length; i++) {
      x[i] = 2f * CounterRng.uniform(5, i) - 1f;
    }
    try (GnnModel plain = new GnnModel(oneLayer(false), new CpuBackend());
        GnnModel res = new GnnModel(oneLayer(true), new CpuBackend())) {
      res.init(3);
      float[] p = res.params();
      // [W | a_src | a_dst | b] as without the residual, then W_res (5 x 3)
      assertThat(p.length).isEqualTo(plain.numParams() + 5 * 3);
      plain.loadParams(Arrays.copyOf(p, plain.numParams()));
      float[] want = plain.forward(new Block[] {b}, x, false, 0).clone();
      int w = plain.numParams();
      for (int i = 0; i < 9; i++) {
        for (int c = 0; c < 3; c++) {
          for (int k = 0; k < 5; k++) {
            want[i * 3 + c] += x[i * 5 + k] * p[w + k * 3 + c];
          }
        }
      }
      float[] got = res.forward(new Block[] {b}, x, false, 0);
      for (int i = 0; i < 9 * 3; i++) {
        assertThat(got[i]).as("logit %d", i).isCloseTo(want[i], within(1e-5f));
      }
    }
  }

  @Test
  void theCheckpointMapNamesTheResidualOnlyWhenOn() {
    ModelConfig without = oneLayer(false);
    ModelConfig with = oneLayer(true);
    assertThat(without.toMap()).doesNotContainKey("gat_residual");
    assertThat(with.toMap()).containsEntry("gat_residual", "true");
    assertThat(ModelConfig.fromMap(without.toMap())).isEqualTo(without);
    assertThat(ModelConfig.fromMap(with.toMap())).isEqualTo(with);
    // a map written before the residual existed: a model without it
    Map<String, String> old = new java.util.LinkedHashMap<>(with.toMap());
    old.remove("gat_residual");
    assertThat(ModelConfig.fromMap(old).attention().residual()).isFalse();
  }
}
