package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.nn.FeatureNormKind;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Row normalization against the textbook loop over every element, bit for bit. */
class FeatureNormTest {
  private static void reference(String norm, float[] x, int rows, int dim) {
    boolean l1 = norm.equals("l1");
    for (int r = 0; r < rows; r++) {
      double s = 0;
      for (int j = 0; j < dim; j++) {
        float v = x[r * dim + j];
        s += l1 ? Math.abs(v) : v * v;
      }
      if (s != 0) {
        float inv = (float) (1.0 / (l1 ? s : Math.sqrt(s)));
        for (int j = 0; j < dim; j++) {
          x[r * dim + j] *= inv;
        }
      }
    }
  }

  @Test
  void sparseAndDenseRowsNormalizeAsTheFullLoopDoes() {
    Random rnd = new Random(3);
    int rows = 200;
    int dim = 301;
    float[] x = new float[rows * dim];
    for (int i = 0; i < x.length; i++) {
      int row = i / dim;
      double density = row % 4 == 0 ? 1.0 : row % 4 == 1 ? 0.01 : row % 4 == 2 ? 0.3 : 0.0;
      if (rnd.nextDouble() < density) {
        x[i] = (float) (rnd.nextGaussian() * 3);
      } else if (rnd.nextInt(5) == 0) {
        x[i] = -0f;
      }
    }
    for (String norm : new String[] {"l1", "l2", "none"}) {
      float[] got = x.clone();
      float[] want = x.clone();
      FeatureNorm.apply(FeatureNormKind.parse(norm), got, rows, dim);
      if (!norm.equals("none")) {
        reference(norm, want, rows, dim);
        assertThat(Arrays.equals(got, x)).isFalse();
      }
      assertThat(Arrays.equals(got, want)).as(norm).isTrue();
      for (int i = 0; i < got.length; i++) {
        assertThat(Float.floatToRawIntBits(got[i]))
            .as("%s element %d", norm, i)
            .isEqualTo(Float.floatToRawIntBits(want[i]));
      }
    }
  }
}
