// L2 row normalisation y = x / max(||x||, eps) and its backward, one thread per row, with the
// arithmetic of io.fanout.tensor.L2RowNorm (float sums in column order, IEEE sqrt and division).

__device__ __forceinline__ float l2_norm(const float* __restrict__ x, int dim, float eps) {
  float s = 0.f;
  for (int d = 0; d < dim; d++) {
    s = __fadd_rn(s, __fmul_rn(x[d], x[d]));
  }
  float n = __fsqrt_rn(s);
  return n > eps ? n : eps;
}

extern "C" __global__ void l2_normalize_rows(const float* __restrict__ x, int rows, int dim,
                                             float eps, float* __restrict__ y) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += gridDim.x * blockDim.x) {
    const float* xr = x + (long long)r * dim;
    float* yr = y + (long long)r * dim;
    float m = l2_norm(xr, dim, eps);
    for (int d = 0; d < dim; d++) {
      yr[d] = __fdiv_rn(xr[d], m);
    }
  }
}

// dx += (dy - y (y . dy)) / ||x|| where ||x|| > eps, else dy / eps.
extern "C" __global__ void l2_normalize_rows_backward(const float* __restrict__ x,
                                                      const float* __restrict__ y, int rows,
                                                      int dim, float eps,
                                                      const float* __restrict__ dy,
                                                      float* __restrict__ dx) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += gridDim.x * blockDim.x) {
    long long o = (long long)r * dim;
    float m = l2_norm(x + o, dim, eps);
    float dot = 0.f;
    if (m > eps) {
      for (int d = 0; d < dim; d++) {
        dot = __fadd_rn(dot, __fmul_rn(y[o + d], dy[o + d]));
      }
    }
    for (int d = 0; d < dim; d++) {
      dx[o + d] = __fadd_rn(dx[o + d], __fdiv_rn(__fsub_rn(dy[o + d], __fmul_rn(y[o + d], dot)), m));
    }
  }
}
