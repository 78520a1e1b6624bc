package io.fanout.nn;

import io.fanout.tensor.NonZeroScan;

/**
 * A host CSR copy of a row-major dense matrix, built at batch upload when the input features are
 * sparse enough that sparse products beat dense BLAS (bag-of-words features with ~1% non-zeros).
 */
final class SparseRows {
  /** Use the sparse path below this fraction of non-zeros. */
  static final double MAX_DENSITY = 0.05;

  int[] ptr = new int[1];
  int[] col = new int[0];
  float[] val = new float[0];
  int rows;

  /**
   * Converts {@code x[0 .. rows*cols)}; returns false (leaving this unusable) when the density
   * exceeds {@link #MAX_DENSITY}.
   */
  boolean build(float[] x, int rows, int cols) {
    this.rows = rows;
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
      int end = o + cols;
      for (int k = NonZeroScan.next(x, o, end); k < end; k = NonZeroScan.next(x, k + 1, end)) {
        if (nnz == col.length) {
          if (nnz >= limit) {
            return false;
          }
          int n = (int) Math.min(limit, col.length * 2L);
          col = java.util.Arrays.copyOf(col, n);
          val = java.util.Arrays.copyOf(val, n);
        }
        col[nnz] = k - o;
        val[nnz++] = x[k];
      }
      ptr[i + 1] = nnz;
    }
    return true;
  }

  int nnz() {
    return ptr[rows];
  }
}
