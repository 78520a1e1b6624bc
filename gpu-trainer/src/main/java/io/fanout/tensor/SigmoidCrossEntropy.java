package io.fanout.tensor;

/**
 * Sigmoid binary cross-entropy for multi-label targets on the CPU ({@link
 * Backend#sigmoidCrossEntropy}): per element {@code p = sigmoid(x)}, loss {@code max(x, 0) - x t +
 * log(1 + exp(-|x|))} in double, gradient {@code (p - t) * scale}. A negative target marks an
 * unknown element (an unlabelled row has all its targets negative): no loss, zero gradient.
 */
final class SigmoidCrossEntropy {
  private SigmoidCrossEntropy() {}

  /** {@code 1 / (1 + exp(-x))}, without overflow for large {@code |x|}. */
  static float sigmoid(float x) {
    if (x >= 0f) {
      return (float) (1.0 / (1.0 + Math.exp(-x)));
    }
    double ex = Math.exp(x);
    return (float) (ex / (1.0 + ex));
  }

  /** The summed loss, in row then column order. */
  static double loss(
      float[] logits,
      int rows,
      int classes,
      float[] targets,
      float[] probs,
      float[] dLogits,
      float scale) {
    double loss = 0;
    for (int r = 0; r < rows; r++) {
      double rowLoss = 0;
      for (int c = 0; c < classes; c++) {
        int o = r * classes + c;
        float x = logits[o];
        float t = targets[o];
        float p = sigmoid(x);
        probs[o] = p;
        if (t >= 0f) {
          rowLoss +=
              Math.max(x, 0.0) - (double) x * t + Math.log1p(Math.exp(-Math.abs((double) x)));
        }
        if (dLogits != null) {
          dLogits[o] = t < 0f ? 0f : (p - t) * scale;
        }
      }
      loss += rowLoss;
    }
    return loss;
  }

  /**
   * Rows with at least one known target whose known targets all equal the thresholded probabilities
   * ({@code p >= 0.5} for 1): the exact-match count.
   */
  static int countExact(float[] probs, int rows, int classes, float[] targets) {
    int n = 0;
    for (int r = 0; r < rows; r++) {
      boolean known = false;
      boolean ok = true;
      for (int c = 0; c < classes; c++) {
        int o = r * classes + c;
        float t = targets[o];
        if (t < 0f) {
          continue;
        }
        known = true;
        ok &= (probs[o] >= 0.5f) == (t >= 0.5f);
      }
      if (known && ok) {
        n++;
      }
    }
    return n;
  }
}
