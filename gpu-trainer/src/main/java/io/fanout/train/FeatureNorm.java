package io.fanout.train;

import io.fanout.nn.FeatureNormKind;
import io.fanout.tensor.NonZeroScan;

/** Row normalization applied to input features when they are gathered. */
public final class FeatureNorm {
  private FeatureNorm() {}

  /** Normalizes {@code rows} rows of width {@code dim} in place by {@code norm}. */
  public static void apply(FeatureNormKind norm, float[] x, int rows, int dim) {
    if (norm == FeatureNormKind.NONE) {
      return;
    }
    boolean l1 = norm == FeatureNormKind.L1;
    for (int r = 0; r < rows; r++) {
      int o = r * dim;
      double s = 0;
      // Zeros add +0.0, which leaves the sum's bits alone: skipping them only saves time on
      // bag-of-words rows (~1% non-zeros).
      int end = o + dim;
      for (int k = NonZeroScan.next(x, o, end); k < end; k = NonZeroScan.next(x, k + 1, end)) {
        float v = x[k];
        s += l1 ? Math.abs(v) : v * v;
      }
      if (s == 0) {
        continue;
      }
      float inv = (float) (1.0 / (l1 ? s : Math.sqrt(s)));
      for (int j = 0; j < dim; j++) {
        x[o + j] *= inv;
      }
    }
  }
}
