// Row normalization of input features read in place (train --feature-norm l1|l2 with
// --feature-access device or zero-copy), bit for bit the host's io.fanout.tensor.RowNorms: per row
// a sum in double over the row in column order (|v| or v*v rounded to float first), then, when the
// sum is not zero, every value times (float)(1 / sum) or (float)(1 / sqrt(sum)), each operation
// rounded to nearest (no FMA). One thread per row keeps the host's order.

extern "C" __global__ void normalize_rows(float* __restrict__ x, int rows, int dim, int l1) {
  for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < rows;
       r += (long long)gridDim.x * blockDim.x) {
    float* row = x + r * dim;
    double s = 0.0;
    for (int k = 0; k < dim; k++) {
      float v = row[k];
      float t = l1 ? fabsf(v) : __fmul_rn(v, v);
      s = __dadd_rn(s, (double)t);
    }
    if (s == 0.0) {
      continue;
    }
    double d = l1 ? s : __dsqrt_rn(s);
    float inv = __double2float_rn(__ddiv_rn(1.0, d));
    for (int k = 0; k < dim; k++) {
      row[k] = __fmul_rn(row[k], inv);
    }
  }
}
