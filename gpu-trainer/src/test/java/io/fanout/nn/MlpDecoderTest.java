package io.fanout.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fanout.tensor.CpuBackend;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The MLP decoder's gradients (its parameters and both endpoints' embeddings) against central
 * finite differences of the summed BCE, on the CPU backend, through a 1-layer model whose flat
 * parameters hold the decoder after the layer.
 */
class MlpDecoderTest {
  static final int DIM = 4;
  static final int[] SRC = {0, 0, 1, 3, 2, 4};
  static final int[] DST = {1, 2, 4, 3, 0, 4};
  static final int[] Y = {1, 0, 1, 0, 1, 0};

  static GnnModel model() {
    return new GnnModel(
        new ModelConfig("sage", 3, DIM, DIM, 1, 0f, "relu", "none", "mlp"), new CpuBackend());
  }

  static double total(GnnModel m, float[] h) {
    float[] s = new float[SRC.length];
    m.decoder().scores(m.paramTensor(), h, SRC, DST, SRC.length, s);
    double sum = 0;
    for (int i = 0; i < s.length; i++) {
      sum += DotDecoder.loss(s[i], Y[i]);
    }
    return sum;
  }

  /** d(sum BCE)/d(score) per pair for the last scores. */
  static float[] dScore(GnnModel m, float[] h) {
    float[] s = new float[SRC.length];
    m.decoder().scores(m.paramTensor(), h, SRC, DST, SRC.length, s);
    float[] d = new float[s.length];
    for (int i = 0; i < s.length; i++) {
      d[i] = (float) (1 / (1 + Math.exp(-s[i])) - Y[i]);
    }
    return d;
  }

  @Test
  void gradientsMatchFiniteDifferences() {
    try (GnnModel m = model()) {
      m.init(7);
      int rows = 5;
      SplittableRandom r = new SplittableRandom(1);
      float[] h = new float[rows * DIM];
      for (int i = 0; i < h.length; i++) {
        h[i] = (float) (r.nextDouble() * 2 - 1);
      }
      float[] p = m.params();
      // biases away from 0 so no relu input sits at its kink
      int layerParams = p.length - (DIM * DIM + DIM + DIM + 1);
      for (int j = 0; j < DIM; j++) {
        p[layerParams + DIM * DIM + j] = 0.3f * (j % 2 == 0 ? 1 : -1);
      }
      m.loadParams(p);
      float[] ds = dScore(m, h);
      m.zeroGrad();
      float[] dh = new float[h.length];
      m.decoder().backward(m.paramTensor(), m.gradTensor(), h, SRC, DST, ds, dh);
      float[] g = m.grads();
      double eps = 1e-3;
      for (int i = 0; i < h.length; i++) {
        float keep = h[i];
        h[i] = (float) (keep + eps);
        double up = total(m, h);
        h[i] = (float) (keep - eps);
        double down = total(m, h);
        h[i] = keep;
        assertThat((double) dh[i]).as("dh[%d]", i).isCloseTo((up - down) / (2 * eps), within(2e-3));
      }
      for (int i = layerParams; i < p.length; i++) {
        float keep = p[i];
        p[i] = (float) (keep + eps);
        m.loadParams(p);
        double up = total(m, h);
        p[i] = (float) (keep - eps);
        m.loadParams(p);
        double down = total(m, h);
        p[i] = keep;
        m.loadParams(p);
        assertThat((double) g[i])
            .as("decoder parameter %d", i - layerParams)
            .isCloseTo((up - down) / (2 * eps), within(2e-3));
      }
      for (int i = 0; i < layerParams; i++) {
        assertThat(g[i]).as("encoder gradient %d untouched by the decoder", i).isZero();
      }
    }
  }

  @Test
  void parametersFollowTheLayersAndInitFromTheSeed() {
    try (GnnModel mlp = model();
        GnnModel dot =
            new GnnModel(
                new ModelConfig("sage", 3, DIM, DIM, 1, 0f, "relu", "none"), new CpuBackend())) {
      assertThat(mlp.numParams() - dot.numParams()).isEqualTo(DIM * DIM + 2 * DIM + 1);
      assertThat(dot.decoder()).isNull();
      mlp.init(3);
      dot.init(3);
      float[] a = mlp.params();
      float[] b = dot.params();
      for (int i = 0; i < b.length; i++) {
        assertThat(a[i]).isEqualTo(b[i]);
      }
      try (GnnModel again = model()) {
        again.init(3);
        assertThat(again.params()).containsExactly(a);
      }
    }
  }

  @Test
  void onlyAnMlpDecoderIsRecordedInTheConfig() {
    ModelConfig dot = new ModelConfig("sage", 3, DIM, DIM, 1, 0f, "relu", "none");
    assertThat(dot.toMap()).doesNotContainKey("decoder");
    assertThat(ModelConfig.fromMap(dot.toMap())).isEqualTo(dot);
    ModelConfig mlp = new ModelConfig("sage", 3, DIM, DIM, 1, 0f, "relu", "none", "mlp");
    assertThat(mlp.toMap()).containsEntry("decoder", "mlp");
    assertThat(ModelConfig.fromMap(mlp.toMap())).isEqualTo(mlp);
  }
}
