// Edge attention (GAT, Simple-HGN) and per-head scores, deterministic and without float atomics.
// The arithmetic and the order of every sum match io.fanout.tensor.CpuAttentionKernels, with
// __fadd_rn/__fmul_rn so that nvcc fuses nothing; only expf may differ from the CPU's exp by an ulp.
//
// A block: rows destination rows, row i's listed edges q in [indptr[i], indptr[i+1]) from source
// row indices[q] of relation rel[q] (hasRel), and with self loops an edge from source row i first.
// Edge slots (alpha, the score gradients) run row by row in edge order, the self loop first: the
// listed edge q of row i is slot q - base + (self ? i + 1 : 0), base = indptr[0].
//
// The backward into source rows gathers over the transposed block built on the host (tptr, tdst,
// tpos: per source row the destination rows and edge positions of its edges, ascending), the self
// loop of row s placed before the first destination >= s: the order in which the CPU scatters.

__device__ __forceinline__ int att_count(const int* __restrict__ indptr, int self, int i) {
  return indptr[i + 1] - indptr[i] + (self ? 1 : 0);
}

__device__ __forceinline__ int att_first_slot(const int* __restrict__ indptr, int self, int i) {
  return indptr[i] - indptr[0] + (self ? i : 0);
}

__device__ __forceinline__ int att_src(const int* __restrict__ indptr,
                                       const int* __restrict__ indices, int self, int i, int t) {
  if (self) {
    return t == 0 ? i : indices[indptr[i] + t - 1];
  }
  return indices[indptr[i] + t];
}

__device__ __forceinline__ int att_rel(const int* __restrict__ indptr, const int* __restrict__ rel,
                                       int self, int selfRel, int i, int t) {
  if (rel == 0) {
    return -1;
  }
  if (self) {
    return t == 0 ? selfRel : rel[indptr[i] + t - 1];
  }
  return rel[indptr[i] + t];
}

// Attention dropout with io.fanout.tensor.CounterRng's hash (as dropout.cu): the factor of weight
// idx = slot * heads + head, 0 when dropped, else scale = 1 / (1 - p); 1 without dropout.
__device__ __forceinline__ unsigned long long att_mix64(unsigned long long z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

__device__ __forceinline__ float att_keep(float p, float scale, unsigned long long key,
                                          long long idx) {
  if (p <= 0.f) {
    return 1.f;
  }
  float u = (float)(att_mix64(key + (unsigned long long)idx * 0x9E3779B97F4A7C15ULL) >> 40) *
            5.9604644775390625e-8f;
  return u < p ? 0.f : scale;
}

// Weight idx after dropout.
__device__ __forceinline__ float att_weight(const float* __restrict__ alpha, float p, float scale,
                                            unsigned long long key, long long idx) {
  float m = att_keep(p, scale, key, idx);
  return m == 1.f ? alpha[idx] : __fmul_rn(alpha[idx], m);
}

// With a residual (res not null): the weight w (after dropout) of weight idx mixed with the
// residual's, kept * w + beta * res[idx]; w itself without one.
__device__ __forceinline__ float att_mixed(float w, float kept, float beta,
                                           const float* __restrict__ res, long long idx) {
  return res == 0 ? w : __fadd_rn(__fmul_rn(kept, w), __fmul_rn(beta, res[idx]));
}

// Weight idx after dropout, mixed with a residual's (as att_mixed).
__device__ __forceinline__ float att_mixed_weight(const float* __restrict__ alpha, float p,
                                                  float scale, unsigned long long key, float kept,
                                                  float beta, const float* __restrict__ res,
                                                  long long idx) {
  return att_mixed(att_weight(alpha, p, scale, key, idx), kept, beta, res, idx);
}

// The raw score of slot t of row i, head k (before the LeakyReLU).
__device__ __forceinline__ float att_raw(const int* __restrict__ indptr,
                                         const int* __restrict__ indices,
                                         const int* __restrict__ rel, int self, int selfRel, int i,
                                         int t, int k, int heads, const float* __restrict__ sDst,
                                         const float* __restrict__ sSrc,
                                         const float* __restrict__ sRel) {
  float v = __fadd_rn(sDst[(long long)i * heads + k],
                      sSrc[(long long)att_src(indptr, indices, self, i, t) * heads + k]);
  int r = att_rel(indptr, rel, self, selfRel, i, t);
  if (r >= 0) {
    v = __fadd_rn(v, sRel[(long long)r * heads + k]);
  }
  return v;
}

// scores[r, k] = z[r, head k] . a[head k], summed in column order: one thread per (r, k).
extern "C" __global__ void head_scores(int rows, int heads, int dim, const float* __restrict__ z,
                                       const float* __restrict__ a, float* __restrict__ scores) {
  long long n = (long long)rows * heads;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int r = (int)(p / heads);
    int k = (int)(p - (long long)r * heads);
    const float* zr = z + (long long)r * heads * dim + (long long)k * dim;
    const float* ak = a + (long long)k * dim;
    float acc = 0.f;
    for (int d = 0; d < dim; d++) {
      acc = __fadd_rn(acc, __fmul_rn(zr[d], ak[d]));
    }
    scores[p] = acc;
  }
}

// dz[r, c] += dScores[r, c / dim] * a[c]: one thread per element.
extern "C" __global__ void head_scores_backward_z(int rows, int heads, int dim,
                                                  const float* __restrict__ a,
                                                  const float* __restrict__ ds,
                                                  float* __restrict__ dz) {
  int hd = heads * dim;
  long long n = (long long)rows * hd;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int r = (int)(p / hd);
    int c = (int)(p - (long long)r * hd);
    dz[p] = __fadd_rn(dz[p], __fmul_rn(ds[(long long)r * heads + c / dim], a[c]));
  }
}

// da[c] += sum_r dScores[r, c / dim] * z[r, c], rows in order: one thread per column.
extern "C" __global__ void head_scores_backward_a(int rows, int heads, int dim,
                                                  const float* __restrict__ z,
                                                  const float* __restrict__ ds,
                                                  float* __restrict__ da) {
  int hd = heads * dim;
  for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < hd; c += gridDim.x * blockDim.x) {
    int k = c / dim;
    float acc = da[c];
    for (int r = 0; r < rows; r++) {
      acc = __fadd_rn(acc, __fmul_rn(ds[(long long)r * heads + k], z[(long long)r * hd + c]));
    }
    da[c] = acc;
  }
}

// The attention weights of row i, head k: LeakyReLU scores, then their softmax over the row's
// slots, the maximum subtracted first. One thread per (i, k).
extern "C" __global__ void attention_softmax(const int* __restrict__ indptr,
                                             const int* __restrict__ indices,
                                             const int* __restrict__ rel, int rows, int heads,
                                             int self, int selfRel, const float* __restrict__ sDst,
                                             const float* __restrict__ sSrc,
                                             const float* __restrict__ sRel, float slope,
                                             float* __restrict__ alpha) {
  long long n = (long long)rows * heads;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int i = (int)(p / heads);
    int k = (int)(p - (long long)i * heads);
    int cnt = att_count(indptr, self, i);
    float* al = alpha + (long long)att_first_slot(indptr, self, i) * heads + k;
    float mx = -INFINITY;
    for (int t = 0; t < cnt; t++) {
      float v = att_raw(indptr, indices, rel, self, selfRel, i, t, k, heads, sDst, sSrc, sRel);
      v = v > 0.f ? v : __fmul_rn(slope, v);
      al[(long long)t * heads] = v;
      mx = fmaxf(mx, v);
    }
    float sum = 0.f;
    for (int t = 0; t < cnt; t++) {
      float ex = expf(__fsub_rn(al[(long long)t * heads], mx));
      al[(long long)t * heads] = ex;
      sum = __fadd_rn(sum, ex);
    }
    if (cnt > 0) {
      float inv = __fdiv_rn(1.f, sum);
      for (int t = 0; t < cnt; t++) {
        al[(long long)t * heads] = __fmul_rn(al[(long long)t * heads], inv);
      }
    }
  }
}

// out[i, c] = sum over row i's slots of alpha[slot, c / dim] * z[src, c], in slot order (with a
// residual res, each weight mixed as att_mixed): one thread per output element.
extern "C" __global__ void attention_aggregate(const int* __restrict__ indptr,
                                               const int* __restrict__ indices, int rows,
                                               int heads, int dim, int self, float p, float scale,
                                               unsigned long long key, float kept, float beta,
                                               const float* __restrict__ res,
                                               const float* __restrict__ alpha,
                                               const float* __restrict__ z,
                                               float* __restrict__ out) {
  int hd = heads * dim;
  long long n = (long long)rows * hd;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int i = (int)(p / hd);
    int c = (int)(p - (long long)i * hd);
    int k = c / dim;
    int cnt = att_count(indptr, self, i);
    long long s0 = (long long)att_first_slot(indptr, self, i) * heads + k;
    float acc = 0.f;
    for (int t = 0; t < cnt; t++) {
      int j = att_src(indptr, indices, self, i, t);
      long long o = s0 + (long long)t * heads;
      float m = att_keep(p, scale, key, o);
      float w = att_mixed(m == 1.f ? alpha[o] : __fmul_rn(alpha[o], m), kept, beta, res, o);
      acc = __fadd_rn(acc, __fmul_rn(w, z[(long long)j * hd + c]));
    }
    out[p] = acc;
  }
}

// The gradient of every slot's raw score of row i, head k, into dRaw (slots x heads), and their
// sum added to dsDst[i, k]; the softmax's share of a residual's mix is kept (1 without one). One
// thread per (i, k).
extern "C" __global__ void attention_edge_grad(
    const int* __restrict__ indptr, const int* __restrict__ indices, const int* __restrict__ rel,
    int rows, int heads, int dim, int self, int selfRel, const float* __restrict__ sDst,
    const float* __restrict__ sSrc, const float* __restrict__ sRel, float slope, float p,
    float scale, unsigned long long key, float kept, const float* __restrict__ z,
    const float* __restrict__ alpha, const float* __restrict__ dOut, float* __restrict__ dRaw,
    float* __restrict__ dsDst) {
  int hd = heads * dim;
  long long n = (long long)rows * heads;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int i = (int)(p / heads);
    int k = (int)(p - (long long)i * heads);
    int cnt = att_count(indptr, self, i);
    if (cnt == 0) {
      continue;
    }
    long long s0 = (long long)att_first_slot(indptr, self, i) * heads + k;
    const float* g = dOut + (long long)i * hd + (long long)k * dim;
    float dot = 0.f;
    for (int t = 0; t < cnt; t++) {
      const float* zj = z + (long long)att_src(indptr, indices, self, i, t) * hd + (long long)k * dim;
      float da = 0.f;
      for (int d = 0; d < dim; d++) {
        da = __fadd_rn(da, __fmul_rn(g[d], zj[d]));
      }
      float m = att_keep(p, scale, key, s0 + (long long)t * heads);
      if (m != 1.f) {
        da = __fmul_rn(da, m);
      }
      if (kept != 1.f) {
        da = __fmul_rn(da, kept);
      }
      dRaw[s0 + (long long)t * heads] = da;
      dot = __fadd_rn(dot, __fmul_rn(alpha[s0 + (long long)t * heads], da));
    }
    float sum = 0.f;
    for (int t = 0; t < cnt; t++) {
      long long o = s0 + (long long)t * heads;
      float de = __fmul_rn(alpha[o], __fsub_rn(dRaw[o], dot));
      float v = att_raw(indptr, indices, rel, self, selfRel, i, t, k, heads, sDst, sSrc, sRel);
      float gr = v > 0.f ? de : __fmul_rn(slope, de);
      dRaw[o] = gr;
      sum = __fadd_rn(sum, gr);
    }
    dsDst[p] = __fadd_rn(dsDst[p], sum);
  }
}

// The slot of the transposed entry t (edge position tpos[t] of destination row tdst[t]).
__device__ __forceinline__ long long att_tslot(const int* __restrict__ tdst,
                                               const int* __restrict__ tpos, int base, int self,
                                               int t) {
  return (long long)tpos[t] - base + (self ? tdst[t] + 1 : 0);
}

// dz[s, c] += sum over the slots from source row s of alpha[slot, c / dim] * dOut[dst, c] (with a
// residual res, each weight mixed as att_mixed): one thread per element of dz, gathering over the
// transposed block.
extern "C" __global__ void attention_src_grad(
    const int* __restrict__ indptr, int rows, int self, const int* __restrict__ tptr,
    const int* __restrict__ tdst, const int* __restrict__ tpos, int srcRows, int heads, int dim,
    float p, float scale, unsigned long long key, float kept, float beta,
    const float* __restrict__ res, const float* __restrict__ alpha,
    const float* __restrict__ dOut, float* __restrict__ dz) {
  int hd = heads * dim;
  int base = indptr[0];
  long long n = (long long)srcRows * hd;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int s = (int)(p / hd);
    int c = (int)(p - (long long)s * hd);
    int k = c / dim;
    float acc = dz[p];
    bool loop = self && s < rows;
    for (int t = tptr[s]; t < tptr[s + 1]; t++) {
      int i = tdst[t];
      if (loop && i >= s) {
        long long sl = (long long)att_first_slot(indptr, self, s) * heads + k;
        acc = __fadd_rn(acc, __fmul_rn(att_mixed_weight(alpha, p, scale, key, kept, beta, res, sl),
                                       dOut[(long long)s * hd + c]));
        loop = false;
      }
      long long sl = att_tslot(tdst, tpos, base, self, t) * heads + k;
      acc = __fadd_rn(acc, __fmul_rn(att_mixed_weight(alpha, p, scale, key, kept, beta, res, sl),
                                     dOut[(long long)i * hd + c]));
    }
    if (loop) {
      long long sl = (long long)att_first_slot(indptr, self, s) * heads + k;
      acc = __fadd_rn(acc, __fmul_rn(att_mixed_weight(alpha, p, scale, key, kept, beta, res, sl),
                                     dOut[(long long)s * hd + c]));
    }
    dz[p] = acc;
  }
}

// dsSrc[s, k] += the raw-score gradients of the slots from source row s, in slot order.
extern "C" __global__ void attention_src_score_grad(
    const int* __restrict__ indptr, int rows, int self, const int* __restrict__ tptr,
    const int* __restrict__ tdst, const int* __restrict__ tpos, int srcRows, int heads,
    const float* __restrict__ dRaw, float* __restrict__ dsSrc) {
  int base = indptr[0];
  long long n = (long long)srcRows * heads;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int s = (int)(p / heads);
    int k = (int)(p - (long long)s * heads);
    float acc = dsSrc[p];
    bool loop = self && s < rows;
    for (int t = tptr[s]; t < tptr[s + 1]; t++) {
      if (loop && tdst[t] >= s) {
        acc = __fadd_rn(acc, dRaw[(long long)att_first_slot(indptr, self, s) * heads + k]);
        loop = false;
      }
      acc = __fadd_rn(acc, dRaw[att_tslot(tdst, tpos, base, self, t) * heads + k]);
    }
    if (loop) {
      acc = __fadd_rn(acc, dRaw[(long long)att_first_slot(indptr, self, s) * heads + k]);
    }
    dsSrc[p] = acc;
  }
}

// part[chunk, r, k] = the raw-score gradients of relation r in rows [chunk * chunkRows, +chunkRows),
// in slot order from zero: one thread per (chunk, r, k).
extern "C" __global__ void attention_rel_partial(const int* __restrict__ indptr,
                                                 const int* __restrict__ rel, int rows, int heads,
                                                 int self, int selfRel, int relations,
                                                 int chunkRows, const float* __restrict__ dRaw,
                                                 float* __restrict__ part) {
  int chunks = (rows + chunkRows - 1) / chunkRows;
  long long n = (long long)chunks * relations * heads;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int k = (int)(p % heads);
    long long cr = p / heads;
    int r = (int)(cr % relations);
    int chunk = (int)(cr / relations);
    int i1 = min(rows, (chunk + 1) * chunkRows);
    float acc = 0.f;
    for (int i = chunk * chunkRows; i < i1; i++) {
      int cnt = att_count(indptr, self, i);
      long long s0 = (long long)att_first_slot(indptr, self, i) * heads + k;
      for (int t = 0; t < cnt; t++) {
        if (att_rel(indptr, rel, self, selfRel, i, t) == r) {
          acc = __fadd_rn(acc, dRaw[s0 + (long long)t * heads]);
        }
      }
    }
    part[p] = acc;
  }
}

// dsRel[r, k] += part[chunk, r, k] over the chunks in order: one thread per (r, k).
extern "C" __global__ void attention_rel_sum(int chunks, int relations, int heads,
                                             const float* __restrict__ part,
                                             float* __restrict__ dsRel) {
  int n = relations * heads;
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
    float acc = dsRel[p];
    for (int c = 0; c < chunks; c++) {
      acc = __fadd_rn(acc, part[(long long)c * n + p]);
    }
    dsRel[p] = acc;
  }
}

// The residual weights of row i, head k from an earlier attention's weights prev: S = the sum of
// prev over the row's slots whose counterpart prevSlots[slot] >= 0 (slot order), and
// out[slot, k] = prev[prevSlots[slot], k] / S, 0 without a counterpart or when S <= 0. One thread
// per (i, k).
extern "C" __global__ void attention_residual_weights(const int* __restrict__ indptr, int rows,
                                                      int heads, int self,
                                                      const int* __restrict__ prevSlots,
                                                      const float* __restrict__ prev,
                                                      float* __restrict__ out) {
  long long n = (long long)rows * heads;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int i = (int)(p / heads);
    int k = (int)(p - (long long)i * heads);
    int cnt = att_count(indptr, self, i);
    int q0 = att_first_slot(indptr, self, i);
    float sum = 0.f;
    for (int t = 0; t < cnt; t++) {
      int j = prevSlots[q0 + t];
      if (j >= 0) {
        sum = __fadd_rn(sum, prev[(long long)j * heads + k]);
      }
    }
    for (int t = 0; t < cnt; t++) {
      int j = prevSlots[q0 + t];
      out[(long long)(q0 + t) * heads + k] =
          j >= 0 && sum > 0.f ? __fdiv_rn(prev[(long long)j * heads + k], sum) : 0.f;
    }
  }
}
