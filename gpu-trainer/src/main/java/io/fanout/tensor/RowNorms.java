package io.fanout.tensor;

/**
 * Row normalization of a row-major matrix ({@code train --feature-norm l1|l2}), the arithmetic
 * every backend reproduces bit for bit: per row a sum in double, in column order, of {@code |v|}
 * (l1) or {@code v * v} rounded to float (l2); a row whose sum is zero is left alone, any other is
 * multiplied by {@code (float) (1 / sum)} or {@code (float) (1 / sqrt(sum))}.
 */
public final class RowNorms {
  private RowNorms() {}

  /** Normalizes the {@code rows x dim} matrix at {@code x[off ..)} in place. */
  public static void normalize(float[] x, int off, int rows, int dim, boolean l1) {
    for (int r = 0; r < rows; r++) {
      int o = off + r * dim;
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
