// Bias add and bias gradient over row-major rows x cols matrices.
// biasGrad reduces each column in ascending row order (one thread per column, no atomics), the
// same order as the CPU backend, so the sums are deterministic and equal to the CPU's.

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
