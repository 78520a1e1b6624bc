// Feature row gathers. gather_rows reads rows of one row-major table; gather_parts reads rows of
// a store's feature partitions through a table of base pointers (device pointers of mapped,
// registered host memory for zero-copy, so the rows travel over PCIe straight into out):
// global row v lies in the partition p with first[p] <= v < first[p + 1], at local row
// v - first[p]. One thread per output element; consecutive threads read consecutive columns.
// gather_parts_v4 is gather_parts for rows of a multiple of 4 floats whose partitions start at
// 16-byte aligned addresses: one thread per 4 columns, so a warp asks for 512 contiguous bytes
// of a row at a time over PCIe instead of 128.

extern "C" __global__ void gather_rows(const float* __restrict__ src, const int* __restrict__ ids,
                                       int rows, int cols, float* __restrict__ out) {
  long long n = (long long)rows * cols;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int r = (int)(p / cols);
    int j = (int)(p - (long long)r * cols);
    out[p] = src[(long long)ids[r] * cols + j];
  }
}

extern "C" __global__ void gather_parts(const unsigned long long* __restrict__ bases,
                                        const long long* __restrict__ first, int parts,
                                        const int* __restrict__ ids, int rows, int cols,
                                        float* __restrict__ out) {
  long long n = (long long)rows * cols;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int r = (int)(p / cols);
    int j = (int)(p - (long long)r * cols);
    long long v = ids[r];
    int lo = 0;
    int hi = parts - 1;
    while (lo < hi) {  // the last partition whose first row is <= v
      int mid = (lo + hi + 1) >> 1;
      if (first[mid] <= v) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    const float* base = (const float*)bases[lo];
    out[p] = base[(v - first[lo]) * cols + j];
  }
}

extern "C" __global__ void gather_parts_v4(const unsigned long long* __restrict__ bases,
                                           const long long* __restrict__ first, int parts,
                                           const int* __restrict__ ids, int rows, int cols4,
                                           float4* __restrict__ out) {
  long long n = (long long)rows * cols4;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x) {
    int r = (int)(p / cols4);
    int j = (int)(p - (long long)r * cols4);
    long long v = ids[r];
    int lo = 0;
    int hi = parts - 1;
    while (lo < hi) {  // the last partition whose first row is <= v
      int mid = (lo + hi + 1) >> 1;
      if (first[mid] <= v) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    const float4* base = (const float4*)bases[lo];
    out[p] = base[(v - first[lo]) * cols4 + j];
  }
}
