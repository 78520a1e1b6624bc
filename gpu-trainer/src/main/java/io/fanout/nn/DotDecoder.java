package io.fanout.nn;

/**
 * The link-prediction decoder {@code score(u, v) = <h_u, h_v>} over the encoder's node embeddings,
 * with binary cross-entropy on the logits: {@code loss = softplus(s) - y s}, computed stably as
 * {@code max(s, 0) - y s + log1p(exp(-|s|))}, whose derivative is {@code sigmoid(s) - y}.
 * Parameter-free, so the encoder's parameters stay the model's only ones.
 */
public final class DotDecoder {
  private DotDecoder() {}

  /** {@code out[i] = <h[src[i]], h[dst[i]]>} for rows of width {@code dim}. */
  public static void scores(float[] h, int dim, int[] src, int[] dst, int pairs, float[] out) {
    for (int i = 0; i < pairs; i++) {
      int a = src[i] * dim;
      int b = dst[i] * dim;
      double s = 0;
      for (int j = 0; j < dim; j++) {
        s += h[a + j] * h[b + j];
      }
      out[i] = (float) s;
    }
  }

  /** Binary cross-entropy of logit {@code s} against label {@code y} (0 or 1). */
  public static double loss(double s, int y) {
    return Math.max(s, 0) - y * s + Math.log1p(Math.exp(-Math.abs(s)));
  }

  /**
   * Summed BCE of the pairs' scores; writes {@code scale * d(loss)/dh} into {@code dh} (rows x dim,
   * overwritten) when it is not null.
   *
   * @param scores the pairs' scores from {@link #scores}
   */
  public static double lossAndGrad(
      float[] h,
      int rows,
      int dim,
      int[] src,
      int[] dst,
      int[] label,
      float[] scores,
      float scale,
      float[] dh) {
    int pairs = src.length;
    double sum = 0;
    if (dh != null) {
      java.util.Arrays.fill(dh, 0, rows * dim, 0f);
    }
    for (int i = 0; i < pairs; i++) {
      double s = scores[i];
      sum += loss(s, label[i]);
      if (dh == null) {
        continue;
      }
      float g = (float) ((1 / (1 + Math.exp(-s)) - label[i]) * scale);
      int a = src[i] * dim;
      int b = dst[i] * dim;
      for (int j = 0; j < dim; j++) {
        dh[a + j] += g * h[b + j];
        dh[b + j] += g * h[a + j];
      }
    }
    return sum;
  }
}
