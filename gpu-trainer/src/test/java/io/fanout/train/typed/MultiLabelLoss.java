package io.fanout.train.typed;

/**
 * The reference of the multi-label loss: sigmoid binary cross-entropy per class over host logits:
 * {@code sum_c max(z,0) - z y_c + log(1 + exp(-|z|))} per labelled row, and the gradient {@code
 * (sigmoid(z) - y) * scale}. A row with an empty label set is unlabelled: no loss, zero gradient.
 * Summed in row order, in double.
 */
final class MultiLabelLoss {
  private MultiLabelLoss() {}

  /**
   * The summed loss of {@code rows x classes} logits against the label sets {@code labelIds[ptr[r]
   * .. ptr[r+1])}; writes the gradient into {@code dLogits}.
   */
  static double lossAndGradient(
      float[] logits,
      int rows,
      int classes,
      int[] ptr,
      int[] labelIds,
      float[] dLogits,
      float scale) {
    double loss = 0;
    boolean[] y = new boolean[classes];
    for (int r = 0; r < rows; r++) {
      int o = r * classes;
      if (ptr[r + 1] == ptr[r]) {
        java.util.Arrays.fill(dLogits, o, o + classes, 0f);
        continue;
      }
      java.util.Arrays.fill(y, false);
      for (int i = ptr[r]; i < ptr[r + 1]; i++) {
        y[labelIds[i]] = true;
      }
      for (int c = 0; c < classes; c++) {
        double z = logits[o + c];
        double t = y[c] ? 1 : 0;
        loss += Math.max(z, 0) - z * t + Math.log1p(Math.exp(-Math.abs(z)));
        double s = 1.0 / (1.0 + Math.exp(-z));
        dLogits[o + c] = (float) ((s - t) * scale);
      }
    }
    return loss;
  }

  /** Rows with a non-empty label set. */
  static int labelled(int[] ptr, int rows) {
    int n = 0;
    for (int r = 0; r < rows; r++) {
      if (ptr[r + 1] > ptr[r]) {
        n++;
      }
    }
    return n;
  }
}
