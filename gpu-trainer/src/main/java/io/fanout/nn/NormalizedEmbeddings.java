package io.fanout.nn;

/**
 * Row-wise L2 normalisation of embeddings, {@code z = h / max(|h|, EPS)}, with its backward pass.
 * Link models score pairs on normalised embeddings (a scaled cosine), which keeps the logits
 * bounded whatever the embeddings' norms.
 */
public final class NormalizedEmbeddings {
  private NormalizedEmbeddings() {}

  /** Smallest norm divided by, so an all-zero row stays zero instead of becoming NaN. */
  public static final double EPS = 1e-12;

  /**
   * Writes {@code z = h / max(|h|, EPS)} into {@code z} and each row's divisor into {@code norms}
   * ({@code rows} long). {@code z} may be {@code h}.
   */
  public static void forward(float[] h, int rows, int dim, float[] z, double[] norms) {
    for (int r = 0; r < rows; r++) {
      int o = r * dim;
      double ss = 0;
      for (int j = 0; j < dim; j++) {
        double v = h[o + j];
        ss += v * v;
      }
      double n = Math.max(Math.sqrt(ss), EPS);
      norms[r] = n;
      for (int j = 0; j < dim; j++) {
        z[o + j] = (float) (h[o + j] / n);
      }
    }
  }

  /**
   * Backward of {@link #forward}: given {@code z}, the divisors and {@code dz = dL/dz}, writes
   * {@code dh = (dz - z <z, dz>) / n} into {@code dh} (which may be {@code dz}). Rows whose norm
   * was clamped to {@code EPS} get {@code dz / EPS}, the derivative of the clamped map.
   */
  public static void backward(
      float[] z, double[] norms, int rows, int dim, float[] dz, float[] dh) {
    for (int r = 0; r < rows; r++) {
      int o = r * dim;
      double n = norms[r];
      double dot = 0;
      if (n > EPS) {
        for (int j = 0; j < dim; j++) {
          dot += (double) z[o + j] * dz[o + j];
        }
      }
      for (int j = 0; j < dim; j++) {
        dh[o + j] = (float) ((dz[o + j] - z[o + j] * dot) / n);
      }
    }
  }
}
