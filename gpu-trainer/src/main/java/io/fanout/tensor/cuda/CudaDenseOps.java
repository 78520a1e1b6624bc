package io.fanout.tensor.cuda;

import io.fanout.tensor.Activation;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import jcuda.driver.CUdeviceptr;

/**
 * The dense-algebra operations of a {@link CudaBackend}: matrix products (cuBLAS, else the own
 * tiled SGEMM, split along k when the grid would leave multiprocessors idle), bias, activations and
 * dropout.
 */
final class CudaDenseOps {
  private final CudaBackend be;
  private final CudaLaunches launches;
  private final DevicePool<CUdeviceptr> pool;
  private final CublasGemm cublas;
  private final int multiprocessors;

  CudaDenseOps(
      CudaBackend be,
      CudaLaunches launches,
      DevicePool<CUdeviceptr> pool,
      CublasGemm cublas,
      int multiprocessors) {
    this.be = be;
    this.launches = launches;
    this.pool = pool;
    this.cublas = cublas;
    this.multiprocessors = multiprocessors;
  }

  void gemm(
      boolean transA,
      boolean transB,
      int m,
      int n,
      int k,
      float alpha,
      FloatTensor a,
      int aOff,
      FloatTensor b,
      int bOff,
      float beta,
      FloatTensor c,
      int cOff) {
    CUdeviceptr pa = be.pointer(a, aOff, (long) m * k);
    CUdeviceptr pb = be.pointer(b, bOff, (long) k * n);
    CUdeviceptr pc = be.pointer(c, cOff, (long) m * n);
    if (m == 0 || n == 0) {
      return;
    }
    be.current();
    if (cublas != null) {
      cublas.gemm(transA, transB, m, n, k, alpha, pa, pb, beta, pc);
      return;
    }
    int splits = SplitK.slices(m, n, k, multiprocessors);
    if (splits == 1) {
      launches.sgemm(transA, transB, m, n, k, alpha, pa, pb, beta, pc, k, 1);
      return;
    }
    int kc = SplitK.sliceLength(k, splits);
    int parts = (k + kc - 1) / kc;
    long mn = (long) m * n;
    DevicePool.Lease<CUdeviceptr> w = pool.acquire(4L * parts * mn);
    try {
      launches.sgemm(transA, transB, m, n, k, 1f, pa, pb, 0f, w.ptr(), kc, parts);
      launches.launch(
          "sgemm_reduce", mn, new KernelArgs().i(parts).l(mn).f(alpha).p(w.ptr()).f(beta).p(pc));
    } finally {
      pool.release(w); // stream order: a later lease of this buffer runs after the reduce
    }
  }

  void addBias(FloatTensor x, int xOff, int rows, int cols, FloatTensor bias, int bOff) {
    CUdeviceptr px = be.pointer(x, xOff, (long) rows * cols);
    CUdeviceptr pb = be.pointer(bias, bOff, cols);
    launches.launch("add_bias", (long) rows * cols, new KernelArgs().p(px).l(rows).i(cols).p(pb));
  }

  void biasGrad(FloatTensor dy, int dyOff, int rows, int cols, FloatTensor grad, int gOff) {
    CUdeviceptr pd = be.pointer(dy, dyOff, (long) rows * cols);
    CUdeviceptr pg = be.pointer(grad, gOff, cols);
    if (rows <= CudaBackend.BIAS_GRAD_CHUNK) {
      launches.launchExact("bias_grad", cols, new KernelArgs().p(pd).l(rows).i(cols).p(pg));
      return;
    }
    int chunk = Math.max(CudaBackend.BIAS_GRAD_CHUNK, (int) ((rows + 65_534L) / 65_535));
    int parts = (int) ((rows + (long) chunk - 1) / chunk);
    DevicePool.Lease<CUdeviceptr> w = pool.acquire(4L * parts * cols);
    try {
      KernelArgs args = new KernelArgs().p(pd).l(rows).i(cols).i(chunk).p(w.ptr());
      launches.launchGrid2(
          "bias_grad_partial",
          (cols + CudaLaunches.THREADS - 1) / CudaLaunches.THREADS,
          parts,
          args);
      launches.launchExact(
          "bias_grad_sum", cols, new KernelArgs().p(w.ptr()).i(parts).i(cols).p(pg));
    } finally {
      pool.release(w); // stream order: a later lease of this buffer runs after the sum
    }
  }

  void activate(Activation act, FloatTensor x, int off, int n) {
    CUdeviceptr p = be.pointer(x, off, n);
    if (act != Activation.NONE) {
      launches.launch("activate", n, new KernelArgs().i(act.ordinal()).p(p).l(n));
    }
  }

  void activateBackward(Activation act, FloatTensor y, int yOff, FloatTensor dy, int dyOff, int n) {
    CUdeviceptr py = be.pointer(y, yOff, n);
    CUdeviceptr pd = be.pointer(dy, dyOff, n);
    if (act != Activation.NONE) {
      launches.launch("activate_backward", n, new KernelArgs().i(act.ordinal()).p(py).p(pd).l(n));
    }
  }

  void dropout(FloatTensor x, int off, int n, float p, long key) {
    CUdeviceptr px = be.pointer(x, off, n);
    if (p <= 0f) {
      return;
    }
    float scale = 1f / (1f - p);
    launches.launch("dropout", n, new KernelArgs().p(px).l(n).f(p).f(scale).l(key));
  }

  void dropoutCsr(
      IntTensor ptr, IntTensor col, FloatTensor val, int rows, int cols, float p, long key) {
    if (p <= 0f || rows == 0) {
      return;
    }
    float scale = 1f / (1f - p);
    launches.launch(
        "dropout_csr",
        rows,
        new KernelArgs()
            .p(be.pointer(ptr, 0, rows + 1L))
            .p(be.pointer(col, 0, col.length()))
            .p(be.pointer(val, 0, val.length()))
            .i(rows)
            .i(cols)
            .f(p)
            .f(scale)
            .l(key));
  }
}
