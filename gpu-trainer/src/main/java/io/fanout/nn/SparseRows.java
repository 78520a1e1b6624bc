package io.fanout.nn;

/**
 * A CSR copy of a row-major dense matrix, built when the input features are sparse enough that
 * sparse products beat dense BLAS (bag-of-words features with ~1% non-zeros).
 */
final class SparseRows {
  /** Use the sparse path below this fraction of non-zeros. */
  static final double MAX_DENSITY = 0.05;

  int[] ptr = new int[1];
  int[] col = new int[0];
  float[] val = new float[0];

  /**
   * Converts {@code x[0 .. rows*cols)}; returns false (leaving this unusable) when the density
   * exceeds {@link #MAX_DENSITY}.
   */
  int builtRows;

  boolean build(float[] x, int rows, int cols) {
    builtRows = rows;
    long limit = (long) (MAX_DENSITY * rows * cols) + 1;
    if (ptr.length < rows + 1) {
      ptr = new int[rows + 1];
    }
    int cap = (int) Math.min(limit, Integer.MAX_VALUE - 8);
    if (col.length < cap) {
      col = new int[Math.min(cap, Math.max(1024, col.length * 2))];
      val = new float[col.length];
    }
    int nnz = 0;
    ptr[0] = 0;
    for (int i = 0; i < rows; i++) {
      int o = i * cols;
      for (int j = 0; j < cols; j++) {
        float v = x[o + j];
        if (v != 0f) {
          if (nnz == col.length) {
            if (nnz >= limit) {
              return false;
            }
            int n = (int) Math.min(limit, col.length * 2L);
            col = java.util.Arrays.copyOf(col, n);
            val = java.util.Arrays.copyOf(val, n);
          }
          col[nnz] = j;
          val[nnz++] = v;
        }
      }
      ptr[i + 1] = nnz;
    }
    return true;
  }

  /**
   * Inverted dropout of the stored values, element {@code (r, c)} masked by {@code
   * CounterRng.uniform(key, r * cols + c)} exactly as {@link io.fanout.tensor.Backend#dropout}
   * masks the dense matrix.
   */
  void dropout(int cols, float p, long key) {
    float scale = 1f / (1f - p);
    for (int r = 0; r < builtRows; r++) {
      long base = (long) r * cols;
      for (int q = ptr[r]; q < ptr[r + 1]; q++) {
        val[q] = io.fanout.tensor.CounterRng.uniform(key, base + col[q]) < p ? 0f : val[q] * scale;
      }
    }
  }
}
