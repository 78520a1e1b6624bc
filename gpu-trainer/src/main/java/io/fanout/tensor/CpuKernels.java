package io.fanout.tensor;

import dev.ludovic.netlib.blas.BLAS;
import java.util.Arrays;
import org.netlib.blas.Sgemm;

/**
 * The CPU implementations of {@link Backend}'s operations over host arrays and element offsets:
 * dense products through {@code dev.ludovic.netlib} BLAS (its JNI path calls the system OpenBLAS
 * when it loads, otherwise its Java {@code VectorBLAS}), everything else in plain loops.
 *
 * <p>BLAS is column-major; a row-major {@code m x n} matrix is the column-major {@code n x m}
 * transpose, so {@code C = A B} is computed as {@code C^T = B^T A^T} with the operands swapped.
 */
final class CpuKernels {
  static final BLAS BLAS_IMPL = BLAS.getInstance();

  /**
   * Whether the native BLAS runs each call on one thread: {@code OPENBLAS_NUM_THREADS} (else {@code
   * OMP_NUM_THREADS}, as OpenBLAS reads them when it loads) is 1. {@code bin/fanout} sets it so.
   */
  static final boolean NATIVE_SINGLE_THREADED = nativeSingleThreaded();

  /**
   * Whether dropout runs on the Vector API ({@link VectorDropout}): the {@code
   * jdk.incubator.vector} module is present (bin/fanout and the tests add it), the machine has
   * vectors of at least 4 longs, and {@code -Dfanout.cpu.vector} is not {@code false}.
   */
  static final boolean VECTOR_DROPOUT = vectorDropout();

  private static boolean vectorDropout() {
    if (!Boolean.parseBoolean(System.getProperty("fanout.cpu.vector", "true"))
        || ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
      return false;
    }
    try {
      return VectorDropout.usable();
    } catch (LinkageError e) {
      return false;
    }
  }

  /** The fastest BLAS found: native OpenBLAS through JNI when it loads. */
  static final ColumnMajorSgemm FASTEST =
      new ColumnMajorSgemm() {
        @Override
        public void sgemm(
            String transA,
            String transB,
            int m,
            int n,
            int k,
            float alpha,
            float[] a,
            int aOff,
            int lda,
            float[] b,
            int bOff,
            int ldb,
            float beta,
            float[] c,
            int cOff,
            int ldc) {
          BLAS_IMPL.sgemm(
              transA, transB, m, n, k, alpha, a, aOff, lda, b, bOff, ldb, beta, c, cOff, ldc);
        }

        @Override
        public boolean threaded() {
          return BLAS_IMPL.getClass().getSimpleName().equals("JNIBLAS") && !NATIVE_SINGLE_THREADED;
        }
      };

  /** The reference BLAS compiled to Java: the same bits on every CPU. */
  static final ColumnMajorSgemm REFERENCE = Sgemm::sgemm;

  private static boolean nativeSingleThreaded() {
    String v = System.getenv("OPENBLAS_NUM_THREADS");
    if (v == null || v.isBlank()) {
      v = System.getenv("OMP_NUM_THREADS");
    }
    return v != null && v.trim().equals("1");
  }

  /**
   * A column-major BLAS {@code sgemm} with array offsets. Each element of {@code C} is a sum over
   * {@code k} whose order does not depend on {@code m} or {@code n} in the reference BLAS and in
   * OpenBLAS's single-threaded kernels, so a product split into row or column blocks of {@code C}
   * gives the same bits for a given split.
   */
  @FunctionalInterface
  interface ColumnMajorSgemm {
    /** Whether the BLAS spreads one call over threads of its own (then Fanout does not split). */
    default boolean threaded() {
      return false;
    }

    void sgemm(
        String transA,
        String transB,
        int m,
        int n,
        int k,
        float alpha,
        float[] a,
        int aOff,
        int lda,
        float[] b,
        int bOff,
        int ldb,
        float beta,
        float[] c,
        int cOff,
        int ldc);
  }

  /** Products of fewer multiply-adds than this run in one call. */
  static final long MIN_GEMM_WORK = 1L << 22;

  /** Split points of a product are multiples of this many rows or columns. */
  static final int GEMM_ALIGN = 16;

  private CpuKernels() {}

  static void copy2d(
      int rows,
      int width,
      float[] src,
      int srcOff,
      int srcStride,
      float[] dst,
      int dstOff,
      int dstStride) {
    for (int r = 0; r < rows; r++) {
      System.arraycopy(src, srcOff + r * srcStride, dst, dstOff + r * dstStride, width);
    }
  }

  static void axpy(int n, float alpha, float[] x, int xOff, float[] y, int yOff) {
    for (int i = 0; i < n; i++) {
      y[yOff + i] += alpha * x[xOff + i];
    }
  }

  static void scale(int n, float alpha, float[] x, int off) {
    for (int i = 0; i < n; i++) {
      x[off + i] *= alpha;
    }
  }

  static void gemm(
      ColumnMajorSgemm sgemm,
      boolean transA,
      boolean transB,
      int m,
      int n,
      int k,
      float alpha,
      float[] a,
      int aOff,
      float[] b,
      int bOff,
      float beta,
      float[] c,
      int cOff) {
    if (m == 0 || n == 0) {
      return;
    }
    if (k == 0) {
      for (int i = 0; i < m * n; i++) {
        c[cOff + i] = beta == 0f ? 0f : beta * c[cOff + i];
      }
      return;
    }
    int lda = transA ? m : k;
    int ldb = transB ? k : n;
    String ta = transA ? "T" : "N";
    String tb = transB ? "T" : "N";
    long work = (long) m * n * k;
    if (sgemm.threaded() || work < MIN_GEMM_WORK) {
      sgemm.sgemm(tb, ta, n, m, k, alpha, b, bOff, ldb, a, aOff, lda, beta, c, cOff, n);
      return;
    }
    // A single-threaded BLAS: split C across the cores ourselves, in blocks of GEMM_ALIGN rows (or
    // columns, when C is wider than tall), each computed by one single-threaded call. The split is
    // a function of the shape and the thread count only. Unlike a threaded OpenBLAS, whose idle
    // workers spin after each call and take a core from the loops that follow, these threads park.
    if (m >= n) {
      ColumnParallel.runAligned(
          work,
          m,
          GEMM_ALIGN,
          (r0, r1) ->
              sgemm.sgemm(
                  tb,
                  ta,
                  n,
                  r1 - r0,
                  k,
                  alpha,
                  b,
                  bOff,
                  ldb,
                  a,
                  aOff + (transA ? r0 : r0 * k),
                  lda,
                  beta,
                  c,
                  cOff + r0 * n,
                  n));
    } else {
      ColumnParallel.runAligned(
          work,
          n,
          GEMM_ALIGN,
          (c0, c1) ->
              sgemm.sgemm(
                  tb,
                  ta,
                  c1 - c0,
                  m,
                  k,
                  alpha,
                  b,
                  bOff + (transB ? c0 * k : c0),
                  ldb,
                  a,
                  aOff,
                  lda,
                  beta,
                  c,
                  cOff + c0,
                  n));
    }
  }

  static void addBias(float[] x, int xOff, int rows, int cols, float[] bias, int bOff) {
    for (int r = 0, p = xOff; r < rows; r++) {
      for (int j = 0; j < cols; j++, p++) {
        x[p] += bias[bOff + j];
      }
    }
  }

  static void biasGrad(float[] dy, int dyOff, int rows, int cols, float[] grad, int gOff) {
    for (int r = 0, p = dyOff; r < rows; r++) {
      for (int j = 0; j < cols; j++, p++) {
        grad[gOff + j] += dy[p];
      }
    }
  }

  static void activate(Activation act, float[] x, int off, int n) {
    int end = off + n;
    switch (act) {
      case RELU:
        // Branch-free: about half the pre-activations are negative, so a branch mispredicts.
        // Negative values (not -0f, not NaN) become +0f, as Math.max would not guarantee.
        for (int i = off; i < end; i++) {
          float v = x[i];
          int neg = v < 0f ? -1 : 0;
          x[i] = Float.intBitsToFloat(Float.floatToRawIntBits(v) & ~neg);
        }
        break;
      case ELU:
        for (int i = off; i < end; i++) {
          if (x[i] < 0f) {
            x[i] = (float) Math.expm1(x[i]);
          }
        }
        break;
      default:
        break;
    }
  }

  static void activateBackward(Activation act, float[] y, int yOff, float[] dy, int dyOff, int n) {
    switch (act) {
      case RELU:
        for (int i = 0; i < n; i++) {
          int off = y[yOff + i] <= 0f ? -1 : 0;
          dy[dyOff + i] = Float.intBitsToFloat(Float.floatToRawIntBits(dy[dyOff + i]) & ~off);
        }
        break;
      case ELU:
        for (int i = 0; i < n; i++) {
          float yi = y[yOff + i];
          if (yi < 0f) {
            dy[dyOff + i] *= yi + 1f;
          }
        }
        break;
      default:
        break;
    }
  }

  static void dropout(float[] x, int off, int n, float p, long key) {
    dropout(x, off, x, off, n, p, key, null);
  }

  /**
   * {@code dst[dstOff + i] = dropout(src[srcOff + i])} for {@code i < n} (in place when the two
   * coincide); when {@code keep} is non-null, bit {@code i % 32} of {@code keep[i / 32]} records
   * whether element {@code i} was kept, for {@link #dropoutBackward}. With {@link #VECTOR_DROPOUT}
   * the hashes are computed a vector at a time ({@link VectorDropout}), with the same results.
   */
  static void dropout(
      float[] src, int srcOff, float[] dst, int dstOff, int n, float p, long key, int[] keep) {
    dropout(src, srcOff, dst, dstOff, n, p, key, keep, VECTOR_DROPOUT && n >= VECTOR_MIN);
  }

  /**
   * Shorter dropouts run the scalar loop: until the JIT has compiled {@link VectorDropout}, its
   * vectors are objects, far slower than the scalar loop (small test batches never warm it up).
   */
  static final int VECTOR_MIN = 1 << 15;

  /** As above, on the Vector API or not: the two give the same bits (tested). */
  static void dropout(
      float[] src,
      int srcOff,
      float[] dst,
      int dstOff,
      int n,
      float p,
      long key,
      int[] keep,
      boolean vector) {
    if (p <= 0f) {
      if (src != dst || srcOff != dstOff) {
        System.arraycopy(src, srcOff, dst, dstOff, n);
      }
      return;
    }
    float scale = 1f / (1f - p);
    // CounterRng.uniform(key, i) < p  <=>  its 24 hash bits < ceil(p * 2^24): an integer test.
    long threshold = (long) Math.ceil(p * 16777216.0);
    int words = (n + 31) >>> 5;
    // Split by 32-element words so that no two threads write the same mask word.
    ColumnParallel.run(
        n,
        words,
        (w0, w1) -> {
          int end = Math.min(n, w1 << 5);
          if (vector) {
            if (keep == null) {
              int done =
                  VectorDropout.apply(
                      src, srcOff, dst, dstOff, w0 << 5, end, key, threshold, scale);
              dropoutRange(src, srcOff, dst, dstOff, done, end, key, threshold, scale, null);
              return;
            }
            int full = Math.min(w1, n >>> 5);
            VectorDropout.applyMasked(
                src, srcOff, dst, dstOff, w0, full, key, threshold, scale, keep);
            w0 = full;
          }
          dropoutRange(src, srcOff, dst, dstOff, w0 << 5, end, key, threshold, scale, keep);
        });
  }

  /** The scalar dropout of positions {@code i0 <= i < i1}, {@code i0} a multiple of 32. */
  private static void dropoutRange(
      float[] src,
      int srcOff,
      float[] dst,
      int dstOff,
      int i0,
      int i1,
      long key,
      long threshold,
      float scale,
      int[] keep) {
    for (int w0 = i0; w0 < i1; w0 += 32) {
      int w1 = Math.min(i1, w0 + 32);
      int bits = 0;
      for (int i = w0; i < w1; i++) {
        // Branch-free (the mask is a coin flip, so a branch mispredicts half the time): all ones
        // when dropped; a dropped element becomes +0f.
        int drop = (int) (((CounterRng.bits24(key, i)) - threshold) >> 63);
        float v = src[srcOff + i] * scale;
        dst[dstOff + i] = Float.intBitsToFloat(Float.floatToRawIntBits(v) & ~drop);
        bits |= (~drop & 1) << (i - w0);
      }
      if (keep != null) {
        keep[w0 >>> 5] = bits;
      }
    }
  }

  /**
   * The backward of a {@link #dropout} that recorded {@code keep}: the same result as repeating
   * that dropout on {@code g} with its key, without hashing the positions again.
   */
  static void dropoutBackward(float[] g, int off, int n, float p, int[] keep) {
    if (p <= 0f) {
      return;
    }
    float scale = 1f / (1f - p);
    int words = (n + 31) >>> 5;
    ColumnParallel.run(
        n,
        words,
        (w0, w1) -> {
          int end = Math.min(n, w1 << 5);
          for (int w = w0; w < w1; w++) {
            int i0 = w << 5;
            int i1 = Math.min(end, i0 + 32);
            int bits = keep[w];
            for (int i = i0; i < i1; i++) {
              int drop = (bits >>> (i - i0) & 1) - 1;
              float v = g[off + i] * scale;
              g[off + i] = Float.intBitsToFloat(Float.floatToRawIntBits(v) & ~drop);
            }
          }
        });
  }

  static void dropoutCsr(int[] ptr, int[] col, float[] val, int rows, int cols, float p, long key) {
    if (p <= 0f) {
      return;
    }
    float scale = 1f / (1f - p);
    for (int r = 0; r < rows; r++) {
      long base = (long) r * cols;
      for (int q = ptr[r]; q < ptr[r + 1]; q++) {
        val[q] = CounterRng.uniform(key, base + col[q]) < p ? 0f : val[q] * scale;
      }
    }
  }

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

  static double softmaxCrossEntropy(
      float[] logits,
      int rows,
      int classes,
      int[] labels,
      float[] probs,
      float[] dLogits,
      float scale) {
    double loss = 0;
    for (int r = 0; r < rows; r++) {
      int o = r * classes;
      float max = Float.NEGATIVE_INFINITY;
      for (int c = 0; c < classes; c++) {
        max = Math.max(max, logits[o + c]);
      }
      double sum = 0;
      for (int c = 0; c < classes; c++) {
        float ex = (float) Math.exp(logits[o + c] - max);
        probs[o + c] = ex;
        sum += ex;
      }
      float inv = (float) (1.0 / sum);
      for (int c = 0; c < classes; c++) {
        probs[o + c] *= inv;
      }
      int y = labels[r];
      if (y >= 0) {
        loss += Math.log(sum) - (logits[o + y] - max);
      }
      if (dLogits != null) {
        for (int c = 0; c < classes; c++) {
          dLogits[o + c] = y < 0 ? 0f : (probs[o + c] - (c == y ? 1f : 0f)) * scale;
        }
      }
    }
    return loss;
  }

  static int countCorrect(float[] scores, int rows, int classes, int[] labels) {
    int correct = 0;
    for (int r = 0; r < rows; r++) {
      int y = labels[r];
      if (y < 0) {
        continue;
      }
      int off = r * classes;
      int best = 0;
      for (int c = 1; c < classes; c++) {
        if (scores[off + c] > scores[off + best]) {
          best = c;
        }
      }
      if (best == y) {
        correct++;
      }
    }
    return correct;
  }

  static void adam(
      float[] params,
      float[] grads,
      float[] m,
      float[] v,
      int n,
      float lr,
      float beta1,
      float beta2,
      float eps,
      float weightDecay,
      long step) {
    double c1 = 1.0 - Math.pow(beta1, step);
    double c2 = 1.0 - Math.pow(beta2, step);
    float stepSize = (float) (lr / c1);
    float vCorr = (float) (1.0 / Math.sqrt(c2));
    for (int i = 0; i < n; i++) {
      float g = grads[i] + weightDecay * params[i];
      float mi = beta1 * m[i] + (1f - beta1) * g;
      float vi = beta2 * v[i] + (1f - beta2) * g * g;
      m[i] = mi;
      v[i] = vi;
      params[i] -= stepSize * mi / ((float) Math.sqrt(vi) * vCorr + eps);
    }
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
