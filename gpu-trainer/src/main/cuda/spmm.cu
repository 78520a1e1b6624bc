// Sparse (CSR, rows x ?) times dense (row-major, n columns): c = S * b + beta * c, one thread per
// output element, nonzeros in CSR order. The transpose product g += S^T * dy walks a transposed
// structure built on the host (io.fanout.tensor.cuda.TransposedCsr: for each column of S, its rows
// and nonzero positions in row order), so neither direction needs float atomics and both add in
// the CPU backend's order.

extern "C" __global__ void spmm(const int* __restrict__ ptr, const int* __restrict__ col,
                                const float* __restrict__ val, int rows,
                                const float* __restrict__ b, int n, float beta,
                                float* __restrict__ c) {
  long long total = (long long)rows * n;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < total;
       p += (long long)gridDim.x * blockDim.x) {
    int i = (int)(p / n);
    int j = (int)(p - (long long)i * n);
    float acc = beta == 0.f ? 0.f : (beta == 1.f ? c[p] : __fmul_rn(beta, c[p]));
    for (int q = ptr[i]; q < ptr[i + 1]; q++) {
      acc = __fadd_rn(acc, __fmul_rn(val[q], b[(long long)col[q] * n + j]));
    }
    c[p] = acc;
  }
}

extern "C" __global__ void spmm_transposed(const int* __restrict__ tptr,
                                           const int* __restrict__ trow,
                                           const int* __restrict__ tpos,
                                           const float* __restrict__ val, int gRows,
                                           const float* __restrict__ dy, int n,
                                           float* __restrict__ g) {
  long long total = (long long)gRows * n;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < total;
       p += (long long)gridDim.x * blockDim.x) {
    int r = (int)(p / n);
    int j = (int)(p - (long long)r * n);
    float acc = g[p];
    for (int t = tptr[r]; t < tptr[r + 1]; t++) {
      acc = __fadd_rn(acc, __fmul_rn(val[tpos[t]], dy[(long long)trow[t] * n + j]));
    }
    g[p] = acc;
  }
}
