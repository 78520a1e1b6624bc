// Small element-wise helpers the layers need between the larger operations.

extern "C" __global__ void fill(float* __restrict__ x, long long n, float value) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    x[i] = value;
  }
}

// y = alpha * x + y
extern "C" __global__ void axpy(long long n, float alpha, const float* __restrict__ x,
                                float* __restrict__ y) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    y[i] = __fadd_rn(__fmul_rn(alpha, x[i]), y[i]);
  }
}

extern "C" __global__ void scale(float* __restrict__ x, long long n, float alpha) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    x[i] = __fmul_rn(x[i], alpha);
  }
}

// Copies a rows x width sub-matrix between row strides (concatenating column ranges).
extern "C" __global__ void copy_2d(int rows, int width, const float* __restrict__ src,
                                   int srcStride, float* __restrict__ dst, int dstStride) {
  long long n = (long long)rows * width;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int r = (int)(p / width);
    int j = (int)(p - (long long)r * width);
    dst[(long long)r * dstStride + j] = src[(long long)r * srcStride + j];
  }
}
