// One Adam step with L2 weight decay added to the gradient. stepSize = lr / (1 - beta1^t) and
// vCorr = 1 / sqrt(1 - beta2^t) are computed by the caller in double, as the CPU backend does.

extern "C" __global__ void adam(float* __restrict__ params, const float* __restrict__ grads,
                                float* __restrict__ m, float* __restrict__ v, long long n,
                                float beta1, float beta2, float eps, float weightDecay,
                                float stepSize, float vCorr) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float p = params[i];
    float g = __fadd_rn(grads[i], __fmul_rn(weightDecay, p));
    float mi = __fadd_rn(__fmul_rn(beta1, m[i]), __fmul_rn(1.f - beta1, g));
    float vi = __fadd_rn(__fmul_rn(beta2, v[i]), __fmul_rn(__fmul_rn(1.f - beta2, g), g));
    m[i] = mi;
    v[i] = vi;
    float den = __fadd_rn(__fmul_rn(sqrtf(vi), vCorr), eps);
    params[i] = __fsub_rn(p, __fdiv_rn(__fmul_rn(stepSize, mi), den));
  }
}
