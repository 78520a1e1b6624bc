package io.fanout.tensor;

/**
 * The L2 row normalisation of a layer's output and its backward ({@link Backend#l2NormalizeRows}):
 * {@code y = x / m} with {@code m = max(||x||, eps)}, the squared norm summed in float in column
 * order. Backward: {@code dx += (dy - y (y . dy)) / m} where {@code ||x|| > eps}, else {@code dx +=
 * dy / eps}.
 */
final class L2RowNorm {
  private L2RowNorm() {}

  /** {@code max(||x row||, eps)}. */
  static float norm(float[] x, int o, int dim, float eps) {
    float s = 0f;
    for (int d = 0; d < dim; d++) {
      s += x[o + d] * x[o + d];
    }
    float n = (float) Math.sqrt(s);
    return n > eps ? n : eps;
  }

  static void forward(float[] x, int xOff, int rows, int dim, float eps, float[] y, int yOff) {
    for (int r = 0; r < rows; r++) {
      int xo = xOff + r * dim;
      int yo = yOff + r * dim;
      float m = norm(x, xo, dim, eps);
      for (int d = 0; d < dim; d++) {
        y[yo + d] = x[xo + d] / m;
      }
    }
  }

  static void backward(
      float[] x,
      int xOff,
      float[] y,
      int yOff,
      int rows,
      int dim,
      float eps,
      float[] dy,
      int dyOff,
      float[] dx,
      int dxOff) {
    for (int r = 0; r < rows; r++) {
      int xo = xOff + r * dim;
      int yo = yOff + r * dim;
      int go = dyOff + r * dim;
      int o = dxOff + r * dim;
      float m = norm(x, xo, dim, eps);
      boolean clamped = !(m > eps);
      float dot = 0f;
      if (!clamped) {
        for (int d = 0; d < dim; d++) {
          dot += y[yo + d] * dy[go + d];
        }
      }
      for (int d = 0; d < dim; d++) {
        dx[o + d] += (dy[go + d] - y[yo + d] * dot) / m;
      }
    }
  }
}
