package io.fanout.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fanout.tensor.CounterRng;
import io.fanout.tensor.CpuBackend;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The gat output heads ({@link AttentionConfig#outputHeads}) and residual ({@link
 * AttentionConfig#residual}) against a reference built from one-head models without residual: the
 * output layer's heads are averaged, the residual adds {@code x_dst W_res}, their parameters lie
 * where the layout says, and the checkpoint map names each only when it differs from the model
 * written before it existed, so such a map rebuilds the same model.
 */
class GatShapeTest {
  private static final int IN = 5;
  private static final int C = 3;

  private static ModelConfig oneLayer(int outHeads, boolean residual) {
    return new ModelConfig(
        ModelKind.GAT,
        IN,
        6,
        C,
        1,
        0f,
        ActivationKind.ELU,
        FeatureNormKind.NONE,
        DecoderKind.DOT,
        new AttentionConfig(3, 0.2f, 0f, outHeads, residual ? GatResidual.ON : GatResidual.OFF));
  }

  /** 9 destinations over 16 sources, and their inputs. */
  private static final Block BLOCK = GradientCheckTest.blocks()[0];

  private static float[] input() {
    float[] x = new float[16 * IN];
    for (int i = 0; i < x.length; i++) {
      x[i] = 2f * CounterRng.uniform(5, i) - 1f;
    }
    return x;
  }

  /** The logits of a one-head model without residual of parameters {@code p}. */
  private static float[] plain(float[] p, float[] x) {
    try (GnnModel m = new GnnModel(oneLayer(1, false), new CpuBackend())) {
      m.loadParams(p);
      return m.forward(new Block[] {BLOCK}, x, false, 0).clone();
    }
  }

  @Test
  void theResidualAddsTheProjectedInputOfEachDestination() {
    float[] x = input();
    try (GnnModel res = new GnnModel(oneLayer(1, true), new CpuBackend())) {
      res.init(3);
      float[] p = res.params();
      // [W | a_src | a_dst | b] as without the residual, then W_res (IN x C)
      int w = (int) GnnModel.paramCount(oneLayer(1, false));
      assertThat(p.length).isEqualTo(w + IN * C);
      float[] want = plain(Arrays.copyOf(p, w), x);
      for (int i = 0; i < 9; i++) {
        for (int c = 0; c < C; c++) {
          for (int k = 0; k < IN; k++) {
            want[i * C + c] += x[i * IN + k] * p[w + k * C + c];
          }
        }
      }
      float[] got = res.forward(new Block[] {BLOCK}, x, false, 0);
      for (int i = 0; i < 9 * C; i++) {
        assertThat(got[i]).as("logit %d", i).isCloseTo(want[i], within(1e-5f));
      }
    }
  }

  @Test
  void theOutputLayerAveragesItsHeads() {
    int heads = 2;
    int width = heads * C;
    float[] x = input();
    try (GnnModel avg = new GnnModel(oneLayer(heads, false), new CpuBackend())) {
      avg.init(4);
      float[] p = avg.params();
      // [W (IN x heads C) | a_src (heads C) | a_dst (heads C) | b (C)]
      assertThat(p.length).isEqualTo(IN * width + 2 * width + C);
      float[] want = new float[9 * C];
      for (int h = 0; h < heads; h++) {
        // head h alone: its columns of W and its slices of the attention vectors, no bias
        float[] one = new float[IN * C + 3 * C];
        for (int k = 0; k < IN; k++) {
          System.arraycopy(p, k * width + h * C, one, k * C, C);
        }
        System.arraycopy(p, IN * width + h * C, one, IN * C, C);
        System.arraycopy(p, IN * width + width + h * C, one, IN * C + C, C);
        float[] y = plain(one, x);
        for (int i = 0; i < want.length; i++) {
          want[i] += y[i] / heads;
        }
      }
      for (int i = 0; i < want.length; i++) {
        want[i] += p[IN * width + 2 * width + i % C];
      }
      float[] got = avg.forward(new Block[] {BLOCK}, x, false, 0);
      for (int i = 0; i < want.length; i++) {
        assertThat(got[i]).as("logit %d", i).isCloseTo(want[i], within(1e-5f));
      }
    }
  }

  @Test
  void autoTurnsTheResidualOnFromAHundredTrainingSeedsPerClass() {
    assertThat(GatResidual.AUTO.resolve(140, 7)).isEqualTo(GatResidual.OFF); // cora
    assertThat(GatResidual.AUTO.resolve(699, 7)).isEqualTo(GatResidual.OFF);
    assertThat(GatResidual.AUTO.resolve(700, 7)).isEqualTo(GatResidual.ON);
    assertThat(GatResidual.AUTO.resolve(4591, 8)).isEqualTo(GatResidual.ON); // amazon_photo
    assertThat(GatResidual.OFF.resolve(4591, 8)).isEqualTo(GatResidual.OFF);
    assertThat(GatResidual.ON.resolve(10, 8)).isEqualTo(GatResidual.ON);
    // a configuration built with auto unresolved has no residual
    assertThat(oneLayer(1, false).withAttention(AttentionConfig.DEFAULT).attention().residual())
        .isEqualTo(GatResidual.OFF);
  }

  @Test
  void theCheckpointMapNamesOnlyWhatDiffersFromTheFirstGat() {
    ModelConfig first = oneLayer(1, false);
    ModelConfig both = oneLayer(8, true);
    assertThat(first.toMap()).doesNotContainKeys("out_heads", "gat_residual");
    assertThat(both.toMap()).containsEntry("out_heads", "8").containsEntry("gat_residual", "true");
    assertThat(ModelConfig.fromMap(first.toMap())).isEqualTo(first);
    assertThat(ModelConfig.fromMap(both.toMap())).isEqualTo(both);
    // a map written before either existed: one output head, no residual
    Map<String, String> old = new java.util.LinkedHashMap<>(both.toMap());
    old.remove("out_heads");
    old.remove("gat_residual");
    assertThat(ModelConfig.fromMap(old)).isEqualTo(first);
  }
}
