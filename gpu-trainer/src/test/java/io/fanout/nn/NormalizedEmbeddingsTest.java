package io.fanout.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Row normalisation: unit rows, zero rows kept finite, and the backward against finite differences.
 */
class NormalizedEmbeddingsTest {
  @Test
  void rowsHaveUnitNormAndZeroRowsStayZero() {
    int dim = 3;
    float[] h = {3, 0, 4, 0, 0, 0, -1, 2, 2};
    float[] z = new float[h.length];
    double[] n = new double[3];
    NormalizedEmbeddings.forward(h, 3, dim, z, n);
    assertThat(z)
        .containsExactly(
            new float[] {0.6f, 0, 0.8f, 0, 0, 0, -1f / 3, 2f / 3, 2f / 3}, within(1e-6f));
    assertThat(n).containsExactly(new double[] {5, NormalizedEmbeddings.EPS, 3}, within(1e-9));
    float[] dh = new float[h.length];
    NormalizedEmbeddings.backward(z, n, 3, dim, new float[] {1, 1, 1, 0, 0, 0, 1, 1, 1}, dh);
    for (float v : dh) {
      assertThat(Float.isFinite(v)).isTrue();
    }
  }

  /**
   * Loss {@code sum w . z}: its gradient by {@link NormalizedEmbeddings#backward} and by
   * differences.
   */
  @Test
  void backwardMatchesFiniteDifferences() {
    int rows = 4;
    int dim = 5;
    SplittableRandom r = new SplittableRandom(7);
    float[] h = new float[rows * dim];
    float[] w = new float[rows * dim];
    for (int i = 0; i < h.length; i++) {
      h[i] = (float) (r.nextDouble() * 4 - 2);
      w[i] = (float) (r.nextDouble() * 2 - 1);
    }
    float[] z = new float[h.length];
    double[] n = new double[rows];
    NormalizedEmbeddings.forward(h, rows, dim, z, n);
    float[] dh = w.clone();
    NormalizedEmbeddings.backward(z, n, rows, dim, dh, dh); // in place, as LinkStep uses it
    double eps = 1e-3;
    for (int i = 0; i < h.length; i++) {
      float keep = h[i];
      h[i] = (float) (keep + eps);
      double up = weighted(h, rows, dim, w);
      h[i] = (float) (keep - eps);
      double down = weighted(h, rows, dim, w);
      h[i] = keep;
      assertThat((double) dh[i]).as("dh[%d]", i).isCloseTo((up - down) / (2 * eps), within(1e-3));
    }
  }

  private static double weighted(float[] h, int rows, int dim, float[] w) {
    float[] z = new float[h.length];
    NormalizedEmbeddings.forward(h, rows, dim, z, new double[rows]);
    double s = 0;
    for (int i = 0; i < z.length; i++) {
      s += (double) w[i] * z[i];
    }
    return s;
  }
}
