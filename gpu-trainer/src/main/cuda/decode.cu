// Decode-gathers for zero-copy reads of quantized stores: like gather_parts (gather.cu), the
// kernels find each batch row in the store's mapped feature partitions through a table of base
// pointers, but the rows there are encoded (f16, int8, int4 or pq, docs/formats.md), so only the
// encoded bytes cross PCIe and each thread decodes one float32 element into out. Every kernel
// reproduces its CPU decoder (io.fanout.graph.*RowDecoder) bit for bit:
//  - f16 widens the half with integer operations as io.fanout.store.Half.toFloat does (NaN payloads
//    kept, subnormals as mant * 2^-24), rather than cvt.f32.f16, whose NaN result PTX leaves open;
//  - int8/int4 compute offset[c] + scale[c] * q with two roundings (no FMA contraction);
//  - pq copies the centroid's float from the codebooks, which live in device memory.
// Rows start at bases[p] + (v - first[p]) * rowBytes; one thread per output element.

// The last partition whose first row is <= v.
__device__ __forceinline__ int part_of(const long long* __restrict__ first, int parts,
                                       long long v) {
  int lo = 0;
  int hi = parts - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) >> 1;
    if (first[mid] <= v) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// The encoded row of global row v.
__device__ __forceinline__ const unsigned char* row_of(const unsigned long long* __restrict__ bases,
                                                       const long long* __restrict__ first,
                                                       int parts, long long v, int rowBytes) {
  int p = part_of(first, parts, v);
  return (const unsigned char*)bases[p] + (v - first[p]) * rowBytes;
}

// io.fanout.store.Half.toFloat with integer operations.
__device__ __forceinline__ float half_bits_to_float(unsigned int h) {
  unsigned int sign = (h & 0x8000u) << 16;
  unsigned int exp = (h >> 10) & 0x1fu;
  unsigned int mant = h & 0x3ffu;
  if (exp == 0x1fu) {
    return __uint_as_float(sign | 0x7f800000u | (mant << 13));
  }
  if (exp == 0u) {
    if (mant == 0u) {
      return __uint_as_float(sign);
    }
    // Subnormal: mant * 2^-24, exact.
    float v = __fmul_rn(__uint2float_rn(mant), 5.9604644775390625e-8f);
    return __uint_as_float(sign | __float_as_uint(v));
  }
  return __uint_as_float(sign | ((exp - 15u + 127u) << 23) | (mant << 13));
}

extern "C" __global__ void gather_parts_f16(const unsigned long long* __restrict__ bases,
                                            const long long* __restrict__ first, int parts,
                                            const int* __restrict__ ids, int rows, int cols,
                                            float* __restrict__ out) {
  long long n = (long long)rows * cols;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int r = (int)(p / cols);
    int j = (int)(p - (long long)r * cols);
    const unsigned short* row =
        (const unsigned short*)row_of(bases, first, parts, ids[r], 2 * cols);
    out[p] = half_bits_to_float(row[j]);
  }
}

extern "C" __global__ void gather_parts_int8(const unsigned long long* __restrict__ bases,
                                             const long long* __restrict__ first, int parts,
                                             const int* __restrict__ ids, int rows, int cols,
                                             const float* __restrict__ scale,
                                             const float* __restrict__ offset,
                                             float* __restrict__ out) {
  long long n = (long long)rows * cols;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int r = (int)(p / cols);
    int j = (int)(p - (long long)r * cols);
    unsigned int q = row_of(bases, first, parts, ids[r], cols)[j];
    out[p] = __fadd_rn(offset[j], __fmul_rn(scale[j], __uint2float_rn(q)));
  }
}

extern "C" __global__ void gather_parts_int4(const unsigned long long* __restrict__ bases,
                                             const long long* __restrict__ first, int parts,
                                             const int* __restrict__ ids, int rows, int cols,
                                             const float* __restrict__ scale,
                                             const float* __restrict__ offset,
                                             float* __restrict__ out) {
  long long n = (long long)rows * cols;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int r = (int)(p / cols);
    int j = (int)(p - (long long)r * cols);
    unsigned int b = row_of(bases, first, parts, ids[r], (cols + 1) / 2)[j >> 1];
    unsigned int q = (j & 1) ? (b >> 4) & 0xfu : b & 0xfu;  // low nibble first
    out[p] = __fadd_rn(offset[j], __fmul_rn(scale[j], __uint2float_rn(q)));
  }
}

// codebooks: group g's centroids back to back from centroids * g * groupSize, width(g) floats each.
extern "C" __global__ void gather_parts_pq(const unsigned long long* __restrict__ bases,
                                           const long long* __restrict__ first, int parts,
                                           const int* __restrict__ ids, int rows, int cols,
                                           int groupSize, int centroids,
                                           const float* __restrict__ codebooks,
                                           float* __restrict__ out) {
  long long n = (long long)rows * cols;
  int groups = (cols + groupSize - 1) / groupSize;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int r = (int)(p / cols);
    int j = (int)(p - (long long)r * cols);
    int g = j / groupSize;
    int col = g * groupSize;
    int w = min(groupSize, cols - col);
    unsigned int code = row_of(bases, first, parts, ids[r], groups)[g];
    // A code past the codebook (a corrupt row, which the host decoder refuses) yields NaN
    // instead of a read outside the codebooks.
    out[p] = code < (unsigned int)centroids
                 ? codebooks[(long long)centroids * col + (long long)code * w + (j - col)]
                 : __int_as_float(0x7fc00000);
  }
}
