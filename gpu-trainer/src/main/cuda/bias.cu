// Bias add and bias gradient over row-major rows x cols matrices.
// bias_grad reduces each column in ascending row order (one thread per column, no atomics), the
// same order as the CPU backend, so the sums are deterministic and equal to the CPU's. With one
// thread per column that is a chain of `rows` dependent adds on a few warps, so tall matrices
// (140,000 rows) take bias_grad_partial (one thread per column and chunk of rows, summing its
// chunk in ascending order) and then bias_grad_sum (adding the chunks' sums to the gradient in
// ascending chunk order): deterministic for a given chunk length, though not the CPU's bits.

extern "C" __global__ void add_bias(float* __restrict__ x, long long rows, int cols,
                                    const float* __restrict__ bias) {
  long long n = rows * cols;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    x[p] = __fadd_rn(x[p], bias[p % cols]);
  }
}

extern "C" __global__ void bias_grad(const float* __restrict__ dy, long long rows, int cols,
                                     float* __restrict__ grad) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) {
    return;
  }
  float g = grad[j];
  for (long long r = 0; r < rows; r++) {
    g = __fadd_rn(g, dy[r * cols + j]);
  }
  grad[j] = g;
}

extern "C" __global__ void bias_grad_partial(const float* __restrict__ dy, long long rows, int cols,
                                             int chunk, float* __restrict__ partial) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) {
    return;
  }
  long long r0 = (long long)blockIdx.y * chunk;
  long long r1 = min(rows, r0 + chunk);
  float s = 0.f;
  for (long long r = r0; r < r1; r++) {
    s = __fadd_rn(s, dy[r * cols + j]);
  }
  partial[(size_t)blockIdx.y * cols + j] = s;
}

extern "C" __global__ void bias_grad_sum(const float* __restrict__ partial, int parts, int cols,
                                         float* __restrict__ grad) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) {
    return;
  }
  float g = grad[j];
  for (int c = 0; c < parts; c++) {
    g = __fadd_rn(g, partial[(size_t)c * cols + j]);
  }
  grad[j] = g;
}
