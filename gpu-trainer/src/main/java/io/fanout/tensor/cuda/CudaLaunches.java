package io.fanout.tensor.cuda;

import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * Kernel launches on a {@link CudaBackend}'s compute stream: the grid shapes (grid-stride, exact,
 * one block, two-dimensional), the argument check against the kernel's signature and, when enabled,
 * the {@link KernelTimes} around each launch.
 */
final class CudaLaunches {
  static final int THREADS = 256;
  private static final long MAX_BLOCKS = 1L << 16;

  private final Kernels kernels;
  private final CUstream stream;
  private final KernelTimes kernelTimes;
  private final Runnable current;

  /**
   * @param kernelTimes null when kernel times are off
   * @param current makes the backend's context current
   */
  CudaLaunches(Kernels kernels, CUstream stream, KernelTimes kernelTimes, Runnable current) {
    this.kernels = kernels;
    this.stream = stream;
    this.kernelTimes = kernelTimes;
    this.current = current;
  }

  /** A grid-stride kernel over {@code n} elements. */
  void launch(String kernel, long n, KernelArgs args) {
    if (n <= 0) {
      return;
    }
    int blocks = (int) Math.min((n + THREADS - 1) / THREADS, MAX_BLOCKS);
    launchGrid(kernel, blocks, args);
  }

  /** A kernel with one thread per item and no grid-stride loop. */
  void launchExact(String kernel, long n, KernelArgs args) {
    if (n <= 0) {
      return;
    }
    launchGrid(kernel, (int) ((n + THREADS - 1) / THREADS), args);
  }

  void launchOneBlock(String kernel, KernelArgs args) {
    launchGrid(kernel, 1, args);
  }

  void launchGrid(String kernel, int blocks, KernelArgs args) {
    launchGrid2(kernel, blocks, 1, args);
  }

  void launchGrid2(String kernel, int blocksX, int blocksY, KernelArgs args) {
    kernels.checkArgs(kernel, args);
    current.run();
    if (kernelTimes != null) {
      kernelTimes.start(kernel, stream);
    }
    CudaDriver.check(
        "cuLaunchKernel(" + kernel + ")",
        JCudaDriver.cuLaunchKernel(
            kernels.get(kernel),
            blocksX,
            blocksY,
            1,
            THREADS,
            1,
            1,
            0,
            stream,
            args.build(),
            null));
    if (kernelTimes != null) {
      kernelTimes.end(stream);
    }
  }

  /** The tiled SGEMM kernel over {@code slices} slices of k, each {@code kc} long. */
  void sgemm(
      boolean transA,
      boolean transB,
      int m,
      int n,
      int k,
      float alpha,
      CUdeviceptr pa,
      CUdeviceptr pb,
      float beta,
      CUdeviceptr pc,
      int kc,
      int slices) {
    CUfunction f = kernels.get("sgemm");
    KernelArgs args =
        new KernelArgs()
            .i(transA ? 1 : 0)
            .i(transB ? 1 : 0)
            .i(m)
            .i(n)
            .i(k)
            .f(alpha)
            .p(pa)
            .p(pb)
            .f(beta)
            .p(pc)
            .i(kc);
    kernels.checkArgs("sgemm", args);
    if (kernelTimes != null) {
      kernelTimes.start(slices > 1 ? "sgemm(split k)" : "sgemm", stream);
    }
    CudaDriver.check(
        "cuLaunchKernel(sgemm)",
        JCudaDriver.cuLaunchKernel(
            f, (n + 63) / 64, (m + 63) / 64, slices, THREADS, 1, 1, 0, stream, args.build(), null));
    if (kernelTimes != null) {
      kernelTimes.end(stream);
    }
  }
}
