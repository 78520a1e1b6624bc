package io.fanout.tensor;

import dev.ludovic.netlib.blas.BLAS;
import java.util.logging.Logger;

/**
 * The CPU backend: dense products through {@code dev.ludovic.netlib} BLAS (its JNI path calls the
 * system OpenBLAS when it loads, otherwise its Java {@code VectorBLAS}), everything else in plain
 * loops over primitive arrays.
 *
 * <p>BLAS is column-major; a row-major {@code m x n} matrix is the column-major {@code n x m}
 * transpose, so {@code C = A B} is computed as {@code C^T = B^T A^T} with the operands swapped.
 */
public final class CpuBackend implements Backend {
  private static final Logger LOG = Logger.getLogger(CpuBackend.class.getName());
  private static final BLAS BLAS_IMPL = BLAS.getInstance();

  static {
    LOG.info("BLAS implementation: " + BLAS_IMPL.getClass().getSimpleName());
  }

  /** The simple class name of the BLAS in use, e.g. {@code JNIBLAS} or {@code VectorBLAS}. */
  public static String blasName() {
    return BLAS_IMPL.getClass().getSimpleName();
  }

  /** Threads the CPU backend splits large operations over ({@code -Dfanout.cpu.threads}). */
  public static int threads() {
    return ColumnParallel.THREADS;
  }

  @Override
  public String name() {
    return "cpu(" + blasName() + ")";
  }

  @Override
  public void gemm(
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
    BLAS_IMPL.sgemm(
        transB ? "T" : "N",
        transA ? "T" : "N",
        n,
        m,
        k,
        alpha,
        b,
        bOff,
        ldb,
        a,
        aOff,
        lda,
        beta,
        c,
        cOff,
        n);
  }

  @Override
  public void addBias(float[] x, int rows, int cols, float[] bias, int bOff) {
    for (int r = 0, p = 0; r < rows; r++) {
      for (int j = 0; j < cols; j++, p++) {
        x[p] += bias[bOff + j];
      }
    }
  }

  @Override
  public void biasGrad(float[] dy, int rows, int cols, float[] grad, int gOff) {
    for (int r = 0, p = 0; r < rows; r++) {
      for (int j = 0; j < cols; j++, p++) {
        grad[gOff + j] += dy[p];
      }
    }
  }

  @Override
  public void activate(Activation act, float[] x, int n) {
    switch (act) {
      case RELU:
        for (int i = 0; i < n; i++) {
          if (x[i] < 0f) {
            x[i] = 0f;
          }
        }
        break;
      case ELU:
        for (int i = 0; i < n; i++) {
          if (x[i] < 0f) {
            x[i] = (float) Math.expm1(x[i]);
          }
        }
        break;
      default:
        break;
    }
  }

  @Override
  public void activateBackward(Activation act, float[] y, float[] dy, int n) {
    switch (act) {
      case RELU:
        for (int i = 0; i < n; i++) {
          if (y[i] <= 0f) {
            dy[i] = 0f;
          }
        }
        break;
      case ELU:
        for (int i = 0; i < n; i++) {
          if (y[i] < 0f) {
            dy[i] *= y[i] + 1f;
          }
        }
        break;
      default:
        break;
    }
  }

  @Override
  public void dropout(float[] x, int n, float p, long key) {
    if (p <= 0f) {
      return;
    }
    float scale = 1f / (1f - p);
    ColumnParallel.run(
        n,
        n,
        (a, b) -> {
          for (int i = a; i < b; i++) {
            x[i] = CounterRng.uniform(key, i) < p ? 0f : x[i] * scale;
          }
        });
  }

  @Override
  public void aggregate(
      Aggregation mode,
      int[] indptr,
      int[] indices,
      int rows,
      int selfWeight,
      float[] src,
      int cols,
      float[] out) {
    ColumnParallel.run(
        (long) indptr[rows] * cols + (long) rows * cols,
        cols,
        (c0, c1) ->
            aggregateColumns(mode, indptr, indices, rows, selfWeight, src, cols, out, c0, c1));
  }

  private static void aggregateColumns(
      Aggregation mode,
      int[] indptr,
      int[] indices,
      int rows,
      int selfWeight,
      float[] src,
      int cols,
      float[] out,
      int c0,
      int c1) {
    for (int i = 0; i < rows; i++) {
      int o = i * cols;
      int s = indptr[i];
      int e = indptr[i + 1];
      if (selfWeight != 0) {
        System.arraycopy(src, o + c0, out, o + c0, c1 - c0);
      } else {
        java.util.Arrays.fill(out, o + c0, o + c1, 0f);
      }
      for (int q = s; q < e; q++) {
        int so = indices[q] * cols;
        for (int j = c0; j < c1; j++) {
          out[o + j] += src[so + j];
        }
      }
      int cnt = e - s + selfWeight;
      if (mode == Aggregation.MEAN && cnt > 1) {
        float w = 1f / cnt;
        for (int j = c0; j < c1; j++) {
          out[o + j] *= w;
        }
      }
    }
  }

  @Override
  public void aggregateBackward(
      Aggregation mode,
      int[] indptr,
      int[] indices,
      int rows,
      int selfWeight,
      float[] dOut,
      int cols,
      float[] dSrc) {
    ColumnParallel.run(
        (long) indptr[rows] * cols + (long) rows * cols,
        cols,
        (c0, c1) ->
            aggregateBackwardColumns(
                mode, indptr, indices, rows, selfWeight, dOut, cols, dSrc, c0, c1));
  }

  private static void aggregateBackwardColumns(
      Aggregation mode,
      int[] indptr,
      int[] indices,
      int rows,
      int selfWeight,
      float[] dOut,
      int cols,
      float[] dSrc,
      int c0,
      int c1) {
    for (int i = 0; i < rows; i++) {
      int o = i * cols;
      int s = indptr[i];
      int e = indptr[i + 1];
      int cnt = e - s + selfWeight;
      float w = mode == Aggregation.MEAN && cnt > 1 ? 1f / cnt : 1f;
      if (selfWeight != 0) {
        for (int j = c0; j < c1; j++) {
          dSrc[o + j] += w * dOut[o + j];
        }
      }
      for (int q = s; q < e; q++) {
        int so = indices[q] * cols;
        for (int j = c0; j < c1; j++) {
          dSrc[so + j] += w * dOut[o + j];
        }
      }
    }
  }

  @Override
  public double softmaxCrossEntropy(
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

  @Override
  public void adam(
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

  @Override
  public void spmm(
      int[] ptr,
      int[] col,
      float[] val,
      int rows,
      float[] b,
      int bOff,
      int n,
      float beta,
      float[] c) {
    for (int i = 0; i < rows; i++) {
      int o = i * n;
      if (beta == 0f) {
        java.util.Arrays.fill(c, o, o + n, 0f);
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

  @Override
  public void spmmTransposed(
      int[] ptr, int[] col, float[] val, int rows, float[] dy, int n, float[] g, int gOff) {
    for (int i = 0; i < rows; i++) {
      int o = i * n;
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
