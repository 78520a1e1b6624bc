// Inverted dropout with io.fanout.tensor.CounterRng's counter hash: element i is zeroed when
// uniform(key, i) < p, otherwise multiplied by scale (= 1/(1-p), computed by the caller in float).
// uniform is bit-identical to the Java one: SplitMix64's finalizer on key + i * golden, the top
// 24 bits scaled by 2^-24, so the masks equal the CPU backend's.

__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

__device__ __forceinline__ float counter_uniform(unsigned long long key, unsigned long long i) {
  return (float)(mix64(key + i * 0x9E3779B97F4A7C15ULL) >> 40) * 5.9604644775390625e-8f;
}

extern "C" __global__ void dropout(float* __restrict__ x, long long n, float p, float scale,
                                   unsigned long long key) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    x[i] = counter_uniform(key, (unsigned long long)i) < p ? 0.f : __fmul_rn(x[i], scale);
  }
}

// Dropout of a CSR matrix's stored values: the value at (r, col[q]) is masked by
// uniform(key, r * cols + col[q]), as dropout masks the dense rows x cols matrix.
extern "C" __global__ void dropout_csr(const int* __restrict__ ptr, const int* __restrict__ col,
                                       float* __restrict__ val, int rows, int cols, float p,
                                       float scale, unsigned long long key) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += gridDim.x * blockDim.x) {
    unsigned long long base = (unsigned long long)r * (unsigned long long)cols;
    for (int q = ptr[r]; q < ptr[r + 1]; q++) {
      val[q] = counter_uniform(key, base + (unsigned long long)col[q]) < p
                   ? 0.f
                   : __fmul_rn(val[q], scale);
    }
  }
}
