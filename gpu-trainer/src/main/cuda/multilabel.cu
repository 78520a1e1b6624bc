// Sigmoid binary cross-entropy for multi-label targets, one thread per row, the per-row losses in
// double summed afterwards by softmax.cu's sum_fixed (a fixed-shape reduction), with the arithmetic
// of io.fanout.tensor.SigmoidCrossEntropy. A negative target is unknown: no loss, zero gradient.

extern "C" __global__ void sigmoid_xent(const float* __restrict__ logits, int rows, int classes,
                                        const float* __restrict__ targets,
                                        float* __restrict__ probs, float* __restrict__ dLogits,
                                        float scale, double* __restrict__ rowLoss) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) {
    return;
  }
  long long o = (long long)r * classes;
  double loss = 0;
  for (int c = 0; c < classes; c++) {
    float x = logits[o + c];
    float t = targets[o + c];
    float p;
    if (x >= 0.f) {
      p = (float)(1.0 / (1.0 + exp(-(double)x)));
    } else {
      double ex = exp((double)x);
      p = (float)(ex / (1.0 + ex));
    }
    probs[o + c] = p;
    if (t >= 0.f) {
      loss += fmax((double)x, 0.0) - (double)x * t + log1p(exp(-fabs((double)x)));
    }
    if (dLogits != 0) {
      dLogits[o + c] = t < 0.f ? 0.f : __fmul_rn(__fsub_rn(p, t), scale);
    }
  }
  rowLoss[r] = loss;
}

// Rows with a known target whose known targets all equal the thresholded probabilities, into
// out[0]: one block of 256 threads, strided slices then a fixed tree.
extern "C" __global__ void __launch_bounds__(256) count_exact(const float* __restrict__ probs,
                                                              int rows, int classes,
                                                              const float* __restrict__ targets,
                                                              int* __restrict__ out) {
  __shared__ int part[256];
  int s = 0;
  for (int r = threadIdx.x; r < rows; r += 256) {
    long long o = (long long)r * classes;
    bool known = false;
    bool ok = true;
    for (int c = 0; c < classes; c++) {
      float t = targets[o + c];
      if (t < 0.f) {
        continue;
      }
      known = true;
      ok = ok && ((probs[o + c] >= 0.5f) == (t >= 0.5f));
    }
    s += known && ok ? 1 : 0;
  }
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if (threadIdx.x < w) {
      part[threadIdx.x] += part[threadIdx.x + w];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[0] = part[0];
  }
}
