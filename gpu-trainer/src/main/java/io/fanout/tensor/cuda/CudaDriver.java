package io.fanout.tensor.cuda;

import java.lang.reflect.Method;
import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * The thin layer over JCuda's driver API: every call's return code goes through {@link #check},
 * which turns an error into a {@link CudaException} naming the call and the error. JCuda's own
 * exceptions stay disabled so that no code path can ignore a code.
 */
public final class CudaDriver {
  private static final Method NATIVE_POINTER =
      hiddenMethod(NativePointerObject.class, "getNativePointer");
  private static final Method BYTE_OFFSET = hiddenMethod(Pointer.class, "getByteOffset");
  private static volatile boolean initialized;

  private CudaDriver() {}

  /** Throws a {@link CudaException} naming {@code call} when {@code rc} is not CUDA_SUCCESS. */
  public static void check(String call, int rc) {
    if (rc != CUresult.CUDA_SUCCESS) {
      throw new CudaException(call, rc, CUresult.stringFor(rc));
    }
  }

  /**
   * Loads the JCuda driver library and runs {@code cuInit(0)} once. Throws {@link CudaException}
   * when the driver reports an error, and the loader's {@link UnsatisfiedLinkError} (wrapped in a
   * {@link CudaException} with code -1) when {@code libcuda.so.1} is absent.
   */
  public static synchronized void init() {
    if (initialized) {
      return;
    }
    try {
      JCudaDriver.setExceptionsEnabled(false);
      check("cuInit", JCudaDriver.cuInit(0));
    } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
      throw new CudaException(
          "load libJCudaDriver",
          -1,
          "the CUDA driver (libcuda.so.1) could not be loaded: " + firstLine(e.getMessage()));
    }
    initialized = true;
  }

  /** The number of visible CUDA devices (after {@link #init}). */
  public static int deviceCount() {
    init();
    int[] n = new int[1];
    check("cuDeviceGetCount", JCudaDriver.cuDeviceGetCount(n));
    return n[0];
  }

  /**
   * The raw address a JCuda pointer (device or host) or handle stands for, including the byte
   * offset of a {@link Pointer#withByteOffset} pointer, which JCuda keeps apart from the base: for
   * tables of pointers that kernels read (the zero-copy gather's partition bases) and for native
   * calls outside JCuda (cuBLAS).
   */
  static long address(NativePointerObject p) {
    try {
      long base = (long) NATIVE_POINTER.invoke(p);
      return p instanceof Pointer ? base + (long) BYTE_OFFSET.invoke(p) : base;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read a JCuda pointer's address", e);
    }
  }

  private static Method hiddenMethod(Class<?> owner, String name) {
    try {
      Method m = owner.getDeclaredMethod(name);
      m.setAccessible(true);
      return m;
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  static String firstLine(String s) {
    if (s == null) {
      return "no message";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
