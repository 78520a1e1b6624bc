package io.fanout.tensor.cuda;

import java.util.logging.Logger;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * What opening a device for a {@link CudaBackend} yields: its name and multiprocessor count, the
 * loaded kernels, cuBLAS (null when it does not load) and the staged-upload machinery on the
 * backend's compute stream.
 */
record CudaDeviceSetup(
    String deviceName,
    int multiprocessors,
    Kernels kernels,
    CublasGemm cublas,
    StagedUploads staged) {
  private static final Logger LOG = Logger.getLogger(CudaBackend.class.getName());

  /**
   * Retains {@code device}'s primary context into {@code context}, creates {@code stream} and loads
   * what runs on it; on failure releases what it made and the context, and rethrows.
   *
   * @param current makes {@code context} current
   */
  static CudaDeviceSetup open(
      int ordinal, CUdevice device, CUcontext context, CUstream stream, Runnable current) {
    CudaDriver.init();
    CudaDriver.check("cuDeviceGet", JCudaDriver.cuDeviceGet(device, ordinal));
    CudaDriver.check(
        "cuDevicePrimaryCtxRetain", JCudaDriver.cuDevicePrimaryCtxRetain(context, device));
    Kernels k = null;
    CublasGemm c = null;
    StagedUploads st = null;
    try {
      current.run();
      byte[] name = new byte[256];
      CudaDriver.check("cuDeviceGetName", JCudaDriver.cuDeviceGetName(name, name.length, device));
      String deviceName = cString(name);
      int[] sms = new int[1];
      CudaDriver.check(
          "cuDeviceGetAttribute",
          JCudaDriver.cuDeviceGetAttribute(
              sms, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
      int multiprocessors = sms[0];
      CudaDriver.check("cuStreamCreate", JCudaDriver.cuStreamCreate(stream, 0));
      k = new Kernels();
      st = new StagedUploads(stream);
      String[] why = {""};
      c = CublasGemm.tryCreate(stream, why);
      LOG.info(
          "CUDA device "
              + ordinal
              + " ("
              + deviceName
              + "): dense products through "
              + (c != null
                  ? c.description()
                  : "the own tiled SGEMM kernel (cuBLAS not loaded: " + why[0] + ")"));
      return new CudaDeviceSetup(deviceName, multiprocessors, k, c, st);
    } catch (RuntimeException e) {
      NativeCleanup cl = new NativeCleanup();
      cl.close(st);
      cl.close(c);
      cl.close(k);
      cl.run("cuDevicePrimaryCtxRelease", () -> JCudaDriver.cuDevicePrimaryCtxRelease(device));
      try {
        cl.rethrow();
      } catch (RuntimeException x) {
        e.addSuppressed(x);
      }
      throw e;
    }
  }

  /** A device memory pool over {@code cuMemAlloc} and {@code cuMemFree}. */
  static DevicePool<CUdeviceptr> devicePool() {
    return new DevicePool<>(
        new DevicePool.Allocator<>() {
          @Override
          public CUdeviceptr alloc(long bytes) {
            CUdeviceptr p = new CUdeviceptr();
            CudaDriver.check("cuMemAlloc", JCudaDriver.cuMemAlloc(p, bytes));
            return p;
          }

          @Override
          public void free(CUdeviceptr p) {
            CudaDriver.check("cuMemFree", JCudaDriver.cuMemFree(p));
          }
        });
  }

  private static String cString(byte[] b) {
    int n = 0;
    while (n < b.length && b[n] != 0) {
      n++;
    }
    return new String(b, 0, n, java.nio.charset.StandardCharsets.US_ASCII);
  }
}
