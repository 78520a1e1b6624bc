package io.fanout.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The dot decoder's BCE gradient against central finite differences. */
class DotDecoderTest {
  static double total(float[] h, int dim, int[] src, int[] dst, int[] y) {
    float[] s = new float[src.length];
    DotDecoder.scores(h, dim, src, dst, src.length, s);
    return DotDecoder.lossAndGrad(h, h.length / dim, dim, src, dst, y, s, 1f, null);
  }

  @Test
  void gradientMatchesFiniteDifferences() {
    int rows = 5;
    int dim = 4;
    SplittableRandom r = new SplittableRandom(1);
    float[] h = new float[rows * dim];
    for (int i = 0; i < h.length; i++) {
      h[i] = (float) (r.nextDouble() * 2 - 1);
    }
    // node 0 in several pairs, a self pair, both labels
    int[] src = {0, 0, 1, 3, 2};
    int[] dst = {1, 2, 4, 3, 0};
    int[] y = {1, 0, 1, 0, 1};
    float[] s = new float[src.length];
    DotDecoder.scores(h, dim, src, dst, src.length, s);
    float[] dh = new float[rows * dim];
    DotDecoder.lossAndGrad(h, rows, dim, src, dst, y, s, 0.5f, dh);
    double eps = 1e-3;
    for (int i = 0; i < h.length; i++) {
      float keep = h[i];
      h[i] = (float) (keep + eps);
      double up = total(h, dim, src, dst, y);
      h[i] = (float) (keep - eps);
      double down = total(h, dim, src, dst, y);
      h[i] = keep;
      assertThat((double) dh[i])
          .as("dh[%d]", i)
          .isCloseTo(0.5 * (up - down) / (2 * eps), within(2e-3));
    }
  }

  @Test
  void lossIsStableForLargeLogits() {
    assertThat(DotDecoder.loss(1000, 1)).isCloseTo(0, within(1e-12));
    assertThat(DotDecoder.loss(1000, 0)).isCloseTo(1000, within(1e-9));
    assertThat(DotDecoder.loss(-1000, 1)).isCloseTo(1000, within(1e-9));
    assertThat(DotDecoder.loss(0, 1)).isCloseTo(Math.log(2), within(1e-12));
  }
}
