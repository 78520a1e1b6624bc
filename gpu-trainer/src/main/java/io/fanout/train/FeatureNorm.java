package io.fanout.train;

/** Row normalization applied to input features when they are gathered. */
public final class FeatureNorm {
  private FeatureNorm() {}

  /**
   * Normalizes {@code rows} rows of width {@code dim} in place: {@code none}, {@code l1}, {@code
   * l2}.
   */
  public static void apply(String norm, float[] x, int rows, int dim) {
    if (norm.equals("none")) {
      return;
    }
    boolean l1 = norm.equals("l1");
    for (int r = 0; r < rows; r++) {
      int o = r * dim;
      double s = 0;
      // Zeros add +0.0, which leaves the sum's bits alone: skipping them only saves the add's
      // latency on bag-of-words rows (~1% non-zeros).
      for (int j = 0; j < dim; j++) {
        float v = x[o + j];
        if (v != 0f) {
          s += l1 ? Math.abs(v) : v * v;
        }
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
