package io.fanout.tensor;

import java.util.Arrays;

/**
 * The graph operations on the CPU: neighbor aggregation and its backward, and sparse (CSR) times
 * dense products, split across the cores by rows of the output so that every output element is
 * summed by one thread in CSR order and the bits do not depend on the thread count.
 */
final class CpuGraphKernels {
  private CpuGraphKernels() {}

  static void aggregate(
      Aggregation mode,
      int[] indptr,
      int pOff,
      int[] indices,
      int iOff,
      int rows,
      int selfWeight,
      float[] src,
      int srcOff,
      int srcStride,
      int cols,
      float[] out,
      int outOff,
      int outStride) {
    // Split by destination rows: each output row is written by one thread, and reads whole source
    // rows (a split by columns would have both threads fetch every row's cache lines).
    ColumnParallel.run(
        (long) (indptr[pOff + rows] - indptr[pOff]) * cols + (long) rows * cols,
        rows,
        (r0, r1) -> {
          for (int i = r0; i < r1; i++) {
            int o = outOff + i * outStride;
            int s = indptr[pOff + i];
            int e = indptr[pOff + i + 1];
            if (selfWeight != 0) {
              System.arraycopy(src, srcOff + i * srcStride, out, o, cols);
            } else {
              Arrays.fill(out, o, o + cols, 0f);
            }
            for (int q = s; q < e; q++) {
              int so = srcOff + indices[iOff + q] * srcStride;
              for (int j = 0; j < cols; j++) {
                out[o + j] += src[so + j];
              }
            }
            int cnt = e - s + selfWeight;
            if (mode == Aggregation.MEAN && cnt > 1) {
              float w = 1f / cnt;
              for (int j = 0; j < cols; j++) {
                out[o + j] *= w;
              }
            }
          }
        });
  }

  static void aggregateBackward(
      Aggregation mode,
      int[] indptr,
      int pOff,
      int[] indices,
      int iOff,
      int rows,
      int selfWeight,
      float[] dOut,
      int dOutOff,
      int dOutStride,
      int cols,
      float[] dSrc,
      int dSrcOff) {
    ColumnParallel.run(
        (long) (indptr[pOff + rows] - indptr[pOff]) * cols + (long) rows * cols,
        cols,
        (c0, c1) -> {
          for (int i = 0; i < rows; i++) {
            int o = dOutOff + i * dOutStride;
            int s = indptr[pOff + i];
            int e = indptr[pOff + i + 1];
            int cnt = e - s + selfWeight;
            float w = mode == Aggregation.MEAN && cnt > 1 ? 1f / cnt : 1f;
            if (selfWeight != 0) {
              int so = dSrcOff + i * cols;
              for (int j = c0; j < c1; j++) {
                dSrc[so + j] += w * dOut[o + j];
              }
            }
            for (int q = s; q < e; q++) {
              int so = dSrcOff + indices[iOff + q] * cols;
              for (int j = c0; j < c1; j++) {
                dSrc[so + j] += w * dOut[o + j];
              }
            }
          }
        });
  }

  /**
   * {@code c = beta * c + A * b} for CSR {@code A} ({@code rows} rows) and row-major {@code b} of
   * width {@code n}. Split by rows of {@code c} across the cores: each row is summed by one thread
   * in CSR order, so the bits do not depend on the thread count.
   */
  static void spmm(
      int[] ptr,
      int[] col,
      float[] val,
      int rows,
      float[] b,
      int bOff,
      int n,
      float beta,
      float[] c,
      int cOff) {
    long work = (long) (ptr[rows] - ptr[0]) * n + (long) rows * n;
    ColumnParallel.run(
        work, rows, (r0, r1) -> spmmRows(ptr, col, val, r0, r1, b, bOff, n, beta, c, cOff));
  }

  static void spmmRows(
      int[] ptr,
      int[] col,
      float[] val,
      int r0,
      int r1,
      float[] b,
      int bOff,
      int n,
      float beta,
      float[] c,
      int cOff) {
    for (int i = r0; i < r1; i++) {
      int o = cOff + i * n;
      if (beta == 0f) {
        Arrays.fill(c, o, o + n, 0f);
      } else if (beta != 1f) {
        for (int j = 0; j < n; j++) {
          c[o + j] *= beta;
        }
      }
      for (int q = ptr[i]; q < ptr[i + 1]; q++) {
        float v = val[q];
        int bo = bOff + col[q] * n;
        for (int j = 0; j < n; j++) {
          c[o + j] += v * b[bo + j];
        }
      }
    }
  }

  /**
   * {@code g += A^T * dy} for CSR {@code A} ({@code rows} rows) and row-major {@code dy} of width
   * {@code n}. Above {@link ColumnParallel#MIN_WORK} it runs on the transpose ({@link
   * TransposedCsr}): each row of {@code g} is summed by one thread, which reads the rows of {@code
   * dy} it needs instead of scattering into random rows of {@code g}, split across the cores in
   * blocks of about equal non-zeros. Every element receives its terms in CSR order either way, so
   * the bits do not depend on the path or the thread count.
   */
  static void spmmTransposed(
      int[] ptr,
      int[] col,
      float[] val,
      int rows,
      float[] dy,
      int dyOff,
      int n,
      float[] g,
      int gOff) {
    long work = (long) (ptr[rows] - ptr[0]) * n;
    if (work < ColumnParallel.MIN_WORK) {
      spmmTransposedSerial(ptr, col, val, rows, dy, dyOff, n, g, gOff);
      return;
    }
    TransposedCsr t = TransposedCsr.build(ptr, 0, col, 0, rows, 0);
    int[] packed = t.packed();
    int dstBase = t.dstOffset();
    int posBase = t.posOffset();
    int[] bounds = balancedBlocks(packed, t.srcRows(), TRANSPOSED_BLOCKS);
    ColumnParallel.run(
        work,
        bounds.length - 1,
        (b0, b1) -> {
          for (int s = bounds[b0]; s < bounds[b1]; s++) {
            int go = gOff + s * n;
            for (int k = packed[s]; k < packed[s + 1]; k++) {
              float v = val[packed[posBase + k]];
              int o = dyOff + packed[dstBase + k] * n;
              for (int j = 0; j < n; j++) {
                g[go + j] += v * dy[o + j];
              }
            }
          }
        });
  }

  /** Blocks of the transpose's rows handed to the threads, balanced by non-zeros. */
  static final int TRANSPOSED_BLOCKS = 1024;

  /**
   * Row boundaries {@code b[0] = 0 <= ... <= b[last] = rows} cutting the prefix sums {@code
   * ptr[0..rows]} into at most {@code blocks} ranges of about equal sums (bag-of-words columns are
   * far from uniform).
   */
  static int[] balancedBlocks(int[] ptr, int rows, int blocks) {
    int parts = Math.max(1, Math.min(blocks, rows));
    int[] b = new int[parts + 1];
    long total = (long) ptr[rows] - ptr[0];
    int r = 0;
    for (int k = 1; k < parts; k++) {
      long target = ptr[0] + total * k / parts;
      while (r < rows && ptr[r] < target) {
        r++;
      }
      b[k] = r;
    }
    b[parts] = rows;
    return b;
  }

  /** {@link #spmmTransposed} on the calling thread, scattering row by row in CSR order. */
  static void spmmTransposedSerial(
      int[] ptr,
      int[] col,
      float[] val,
      int rows,
      float[] dy,
      int dyOff,
      int n,
      float[] g,
      int gOff) {
    for (int i = 0; i < rows; i++) {
      int o = dyOff + i * n;
      for (int q = ptr[i]; q < ptr[i + 1]; q++) {
        float v = val[q];
        int go = gOff + col[q] * n;
        for (int j = 0; j < n; j++) {
          g[go + j] += v * dy[o + j];
        }
      }
    }
  }
}
