// Softmax cross-entropy, one thread per row (class counts are small), then a fixed-shape
// reduction of the per-row losses in double, so the summed loss is deterministic.
// Rows whose label is negative contribute no loss and a zero gradient.

extern "C" __global__ void softmax_xent(const float* __restrict__ logits, int rows, int classes,
                                        const int* __restrict__ labels, float* __restrict__ probs,
                                        float* __restrict__ dLogits, float scale,
                                        double* __restrict__ rowLoss) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) {
    return;
  }
  const float* l = logits + (long long)r * classes;
  float* pr = probs + (long long)r * classes;
  float mx = -INFINITY;
  for (int c = 0; c < classes; c++) {
    mx = fmaxf(mx, l[c]);
  }
  double sum = 0;
  for (int c = 0; c < classes; c++) {
    float ex = expf(l[c] - mx);
    pr[c] = ex;
    sum += ex;
  }
  float inv = (float)(1.0 / sum);
  for (int c = 0; c < classes; c++) {
    pr[c] = __fmul_rn(pr[c], inv);
  }
  int y = labels[r];
  rowLoss[r] = y >= 0 ? log(sum) - (double)(l[y] - mx) : 0.0;
  if (dLogits != 0) {
    float* d = dLogits + (long long)r * classes;
    for (int c = 0; c < classes; c++) {
      d[c] = y < 0 ? 0.f : __fmul_rn(pr[c] - (c == y ? 1.f : 0.f), scale);
    }
  }
}

// Sums x[0 .. n) into out[0] with one block of 256 threads: each thread adds a strided slice in
// ascending order, then a tree of fixed shape combines the partial sums.
extern "C" __global__ void __launch_bounds__(256) sum_fixed(const double* __restrict__ x,
                                                            long long n,
                                                            double* __restrict__ out) {
  __shared__ double part[256];
  double s = 0;
  for (long long i = threadIdx.x; i < n; i += 256) {
    s += x[i];
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

// The number of labelled rows whose first maximal score is the label, into out[0]: one block of
// 256 threads, strided slices then a fixed tree.
extern "C" __global__ void __launch_bounds__(256) count_correct(const float* __restrict__ scores,
                                                                int rows, int classes,
                                                                const int* __restrict__ labels,
                                                                int* __restrict__ out) {
  __shared__ int part[256];
  int s = 0;
  for (int r = threadIdx.x; r < rows; r += 256) {
    int y = labels[r];
    if (y < 0) {
      continue;
    }
    const float* row = scores + (long long)r * classes;
    int best = 0;
    for (int c = 1; c < classes; c++) {
      if (row[c] > row[best]) {
        best = c;
      }
    }
    s += best == y ? 1 : 0;
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
