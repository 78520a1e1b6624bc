// Pointwise activations and their backward, expressed through the outputs y.
// act: 0 = relu, 1 = elu (the order of io.fanout.tensor.Activation); anything else is identity.

extern "C" __global__ void activate(int act, float* __restrict__ x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float v = x[i];
    if (v < 0.f) {
      if (act == 0) {
        x[i] = 0.f;
      } else if (act == 1) {
        x[i] = expm1f(v);
      }
    }
  }
}

extern "C" __global__ void activate_backward(int act, const float* __restrict__ y,
                                             float* __restrict__ dy, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float v = y[i];
    if (act == 0) {
      if (v <= 0.f) {
        dy[i] = 0.f;
      }
    } else if (act == 1) {
      if (v < 0.f) {
        dy[i] = __fmul_rn(dy[i], __fadd_rn(v, 1.f));
      }
    }
  }
}
