package io.fanout.tensor.cuda;

import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.HostFloats;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TransposeAhead;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * The host transfers of a {@link CudaBackend}: uploads staged through pinned memory on the copy
 * stream ({@link StagedUploads}), synchronous read-backs ordered after the compute stream's work,
 * and copies to and from the backend's own pinned host buffers on the compute stream. An int upload
 * also updates the tensor's host mirror, which the transposes are built from.
 */
final class CudaTransfers {
  private final CudaBackend be;
  private final CUstream stream;
  private final StagedUploads staged;
  private final TransposeAhead transposes;

  CudaTransfers(CudaBackend be, CUstream stream, StagedUploads staged, TransposeAhead transposes) {
    this.be = be;
    this.stream = stream;
    this.staged = staged;
    this.transposes = transposes;
  }

  void upload(float[] src, int srcOff, FloatTensor dst, int dstOff, int n) {
    CUdeviceptr d = be.pointer(dst, dstOff, n);
    if (n == 0) {
      return;
    }
    be.current();
    staged.upload(src, srcOff, n, d);
  }

  void upload(int[] src, int srcOff, IntTensor dst, int dstOff, int n) {
    CUdeviceptr d = be.pointer(dst, dstOff, n);
    int[] mirror = ((CudaTensors.Ints) dst).mirror;
    transposes.invalidate(mirror);
    System.arraycopy(src, srcOff, mirror, dstOff, n);
    if (n == 0) {
      return;
    }
    be.current();
    staged.upload(src, srcOff, n, d);
  }

  void download(FloatTensor src, int srcOff, float[] dst, int dstOff, int n) {
    CUdeviceptr s = be.pointer(src, srcOff, n);
    if (n == 0) {
      return;
    }
    be.current();
    staged.endGroup();
    CudaDriver.check(
        "cuMemcpyDtoH",
        JCudaDriver.cuMemcpyDtoH(Pointer.to(dst).withByteOffset(4L * dstOff), s, 4L * n));
  }

  void download(IntTensor src, int srcOff, int[] dst, int dstOff, int n) {
    CUdeviceptr s = be.pointer(src, srcOff, n);
    if (n == 0) {
      return;
    }
    be.current();
    staged.endGroup();
    CudaDriver.check(
        "cuMemcpyDtoH",
        JCudaDriver.cuMemcpyDtoH(Pointer.to(dst).withByteOffset(4L * dstOff), s, 4L * n));
  }

  /** Device to pinned host, after the work queued before it. */
  void download(FloatTensor src, int srcOff, HostFloats dst, int dstOff, int n) {
    CUdeviceptr s = be.pointer(src, srcOff, n);
    Pointer h = pinned(dst).at(dstOff, n);
    if (n == 0) {
      return;
    }
    be.current();
    staged.endGroup();
    CudaDriver.check("cuMemcpyDtoHAsync", JCudaDriver.cuMemcpyDtoHAsync(h, s, 4L * n, stream));
    CudaDriver.check("cuStreamSynchronize", JCudaDriver.cuStreamSynchronize(stream));
  }

  /**
   * Pinned host to device on the compute stream, so the operations after it see the data; the
   * buffer must not be rewritten before the next read-back (which waits for the copy).
   */
  void upload(HostFloats src, int srcOff, FloatTensor dst, int dstOff, int n) {
    CUdeviceptr d = be.pointer(dst, dstOff, n);
    Pointer h = pinned(src).at(srcOff, n);
    if (n == 0) {
      return;
    }
    be.current();
    CudaDriver.check("cuMemcpyHtoDAsync", JCudaDriver.cuMemcpyHtoDAsync(d, h, 4L * n, stream));
  }

  private PinnedHostFloats pinned(HostFloats h) {
    if (h instanceof PinnedHostFloats p && p.owner() == be) {
      return p;
    }
    throw new IllegalArgumentException(
        "a host buffer not allocated by " + be.name() + " was passed to it: " + h);
  }
}
