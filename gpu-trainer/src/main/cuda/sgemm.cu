// Tiled SGEMM over row-major matrices: C = alpha * op(A) * op(B) + beta * C.
// op(A) is m x k (A stored m x k, or k x m when transA), op(B) is k x n (B stored k x n, or
// n x k when transB). Each C element is accumulated by one thread in ascending k order, so the
// result is deterministic. When beta == 0, C is written without being read.
//
// Split K: with gridDim.z = S > 1, block z accumulates k in [z * kc, min(k, (z + 1) * kc)) and
// writes its partial product to slice z of C (C then holds S consecutive m x n slices; the caller
// passes alpha = 1 and beta = 0); sgemm_reduce sums the slices in ascending z, so the result is
// deterministic for a given S. This keeps a product with few output tiles and a long k (a weight
// gradient: 200 x 256 outputs over 140,000 rows) from running on a handful of multiprocessors.
#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4

extern "C" __global__ void __launch_bounds__(256) sgemm(
    int transA, int transB, int m, int n, int k, float alpha, const float* __restrict__ a,
    const float* __restrict__ b, float beta, float* __restrict__ c, int kc) {
  __shared__ float as[BK][BM + 1];
  __shared__ float bs[BK][BN + 1];
  const int tid = threadIdx.x;
  const int tr = tid / (BN / TN);  // 0..15: a 4-row slice of the tile
  const int tc = tid % (BN / TN);  // 0..15: a 4-column slice of the tile
  const int row0 = blockIdx.y * BM;
  const int col0 = blockIdx.x * BN;
  const int kb = blockIdx.z * kc;
  const int ke = min(k, kb + kc);
  c += (size_t)blockIdx.z * m * n;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; i++) {
#pragma unroll
    for (int j = 0; j < TN; j++) {
      acc[i][j] = 0.f;
    }
  }
  for (int k0 = kb; k0 < ke; k0 += BK) {
    // 256 threads load 64 x 16 elements of each operand, 4 per thread.
#pragma unroll
    for (int l = 0; l < (BM * BK) / 256; l++) {
      int e = tid + l * 256;
      int kk, ii;
      if (transA) {  // A is k x m: consecutive threads walk rows of op(A) for coalescing
        ii = e % BM;
        kk = e / BM;
      } else {
        kk = e % BK;
        ii = e / BK;
      }
      int gi = row0 + ii;
      int gk = k0 + kk;
      float v = 0.f;
      if (gi < m && gk < ke) {
        v = transA ? a[(size_t)gk * m + gi] : a[(size_t)gi * k + gk];
      }
      as[kk][ii] = v;
    }
#pragma unroll
    for (int l = 0; l < (BN * BK) / 256; l++) {
      int e = tid + l * 256;
      int kk, jj;
      if (transB) {  // B is n x k
        kk = e % BK;
        jj = e / BK;
      } else {
        jj = e % BN;
        kk = e / BN;
      }
      int gj = col0 + jj;
      int gk = k0 + kk;
      float v = 0.f;
      if (gj < n && gk < ke) {
        v = transB ? b[(size_t)gj * k + gk] : b[(size_t)gk * n + gj];
      }
      bs[kk][jj] = v;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk++) {
      float ra[TM];
      float rb[TN];
#pragma unroll
      for (int i = 0; i < TM; i++) {
        ra[i] = as[kk][tr * TM + i];
      }
#pragma unroll
      for (int j = 0; j < TN; j++) {
        rb[j] = bs[kk][tc * TN + j];
      }
#pragma unroll
      for (int i = 0; i < TM; i++) {
#pragma unroll
        for (int j = 0; j < TN; j++) {
          acc[i][j] += ra[i] * rb[j];
        }
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; i++) {
    int gi = row0 + tr * TM + i;
    if (gi >= m) {
      continue;
    }
#pragma unroll
    for (int j = 0; j < TN; j++) {
      int gj = col0 + tc * TN + j;
      if (gj < n) {
        size_t p = (size_t)gi * n + gj;
        c[p] = beta == 0.f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * c[p];
      }
    }
  }
}

// C = alpha * (sum of the parts slices of w, in ascending slice order) + beta * C, over m * n
// elements; beta == 0 writes C without reading it.
extern "C" __global__ void sgemm_reduce(
    int parts, long long mn, float alpha, const float* __restrict__ w, float beta,
    float* __restrict__ c) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= mn) {
    return;
  }
  float s = 0.f;
  for (int z = 0; z < parts; z++) {
    s += w[(size_t)z * mn + i];
  }
  c[i] = beta == 0.f ? alpha * s : alpha * s + beta * c[i];
}
