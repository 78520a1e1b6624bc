package io.fanout.tensor;

/**
 * The CPU implementations of {@link Backend}'s element-wise, bias, activation, loss and optimizer
 * operations over host arrays and element offsets, in plain loops. Products are {@link CpuGemm},
 * dropout {@link CpuDropout}, the graph operations {@link CpuGraphKernels}.
 */
final class CpuKernels {
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
}
