// CSR neighbor aggregation, deterministic and without float atomics.
//
// Forward: out[i] = w(i) * (selfWeight * src[i] + sum_{q in [indptr[i], indptr[i+1])} src[indices[q]])
// with w(i) = 1 / (deg + selfWeight) for mean (1 when that count is <= 1) and 1 for sum. One
// thread owns one output element and adds the edges in CSR order, as the CPU backend does.
//
// Backward: a transposed CSR built on the host from the block's CSR (io.fanout.tensor.cuda
// .TransposedCsr) lists, for each source row s, the destination rows i of its edges in edge order.
// One thread owns one element of dSrc and adds w(i) * dOut[i] over that list, the self term
// (s < rows with selfWeight) placed before the first destination >= s: exactly the order in which
// the CPU backend scatters, so the sums equal the CPU's bit for bit, without float atomics.

extern "C" __global__ void aggregate(int mean, const int* __restrict__ indptr,
                                     const int* __restrict__ indices, int rows, int selfWeight,
                                     const float* __restrict__ src, int cols,
                                     float* __restrict__ out) {
  long long n = (long long)rows * cols;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int i = (int)(p / cols);
    int j = (int)(p - (long long)i * cols);
    int s = indptr[i];
    int e = indptr[i + 1];
    float acc = selfWeight != 0 ? src[p] : 0.f;
    for (int q = s; q < e; q++) {
      acc = __fadd_rn(acc, src[(long long)indices[q] * cols + j]);
    }
    int cnt = e - s + selfWeight;
    if (mean && cnt > 1) {
      acc = __fmul_rn(acc, 1.f / (float)cnt);
    }
    out[p] = acc;
  }
}

__device__ __forceinline__ float agg_weight(int mean, const int* __restrict__ indptr, int i,
                                            int selfWeight) {
  int cnt = indptr[i + 1] - indptr[i] + selfWeight;
  return mean && cnt > 1 ? 1.f / (float)cnt : 1.f;
}

extern "C" __global__ void aggregate_backward(int mean, const int* __restrict__ indptr, int rows,
                                              int selfWeight, const int* __restrict__ tptr,
                                              const int* __restrict__ tdst, int srcRows,
                                              const float* __restrict__ dOut, int cols,
                                              float* __restrict__ dSrc) {
  long long n = (long long)srcRows * cols;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int s = (int)(p / cols);
    int j = (int)(p - (long long)s * cols);
    float acc = dSrc[p];
    bool self = selfWeight != 0 && s < rows;
    for (int t = tptr[s]; t < tptr[s + 1]; t++) {
      int i = tdst[t];
      if (self && i >= s) {
        acc = __fadd_rn(acc, __fmul_rn(agg_weight(mean, indptr, s, selfWeight), dOut[p]));
        self = false;
      }
      acc = __fadd_rn(acc,
                      __fmul_rn(agg_weight(mean, indptr, i, selfWeight), dOut[(long long)i * cols + j]));
    }
    if (self) {
      acc = __fadd_rn(acc, __fmul_rn(agg_weight(mean, indptr, s, selfWeight), dOut[p]));
    }
    dSrc[p] = acc;
  }
}
