package io.fanout.tensor.cuda;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;

/**
 * The cuBLAS C functions the CUDA backend calls, bound through JNA's direct mapping to whichever
 * libcublas {@link CublasLibrary} opened. These entry points keep one C ABI across CUDA major
 * versions. A handle is an opaque pointer, a stream is the driver's {@code CUstream} (the same
 * object as the runtime's {@code cudaStream_t}), device matrices are raw addresses, and alpha and
 * beta are read from host memory (cuBLAS's default pointer mode). Each call returns a {@code
 * cublasStatus_t}, which {@link #statusName} spells.
 */
final class CublasNative {
  /** The symbols {@link #bind} needs; a library lacking one is not used. */
  static final String[] SYMBOLS = {
    "cublasCreate_v2",
    "cublasDestroy_v2",
    "cublasSetStream_v2",
    "cublasSetMathMode",
    "cublasGetVersion_v2",
    "cublasSgemm_v2",
    "cublasGemmEx"
  };

  static final int STATUS_SUCCESS = 0;
  static final int OP_N = 0;
  static final int OP_T = 1;

  /** {@code CUBLAS_DEFAULT_MATH}: FP32 products, no TF32 tensor-core rounding. */
  static final int DEFAULT_MATH = 0;

  /** {@code CUDA_R_32F}: float32 matrices. */
  static final int R_32F = 0;

  /** {@code CUBLAS_COMPUTE_32F_FAST_16BF}: fp32 accumulation of operands rounded to bfloat16. */
  static final int COMPUTE_32F_FAST_16BF = 75;

  /** {@code CUBLAS_COMPUTE_32F_FAST_TF32}: fp32 accumulation of operands rounded to TF32. */
  static final int COMPUTE_32F_FAST_TF32 = 77;

  /** {@code CUBLAS_GEMM_DEFAULT}: cuBLAS picks the algorithm (the same one for a shape). */
  static final int GEMM_DEFAULT = -1;

  private CublasNative() {}

  /** Binds the native methods below to {@code lib}; once per process. */
  static void bind(NativeLibrary lib) {
    Native.register(CublasNative.class, lib);
  }

  static native int cublasCreate_v2(PointerByReference handle);

  static native int cublasDestroy_v2(Pointer handle);

  static native int cublasSetStream_v2(Pointer handle, Pointer stream);

  static native int cublasSetMathMode(Pointer handle, int mode);

  static native int cublasGetVersion_v2(Pointer handle, int[] version);

  static native int cublasSgemm_v2(
      Pointer handle,
      int transa,
      int transb,
      int m,
      int n,
      int k,
      float[] alpha,
      long a,
      int lda,
      long b,
      int ldb,
      float[] beta,
      long c,
      int ldc);

  static native int cublasGemmEx(
      Pointer handle,
      int transa,
      int transb,
      int m,
      int n,
      int k,
      float[] alpha,
      long a,
      int aType,
      int lda,
      long b,
      int bType,
      int ldb,
      float[] beta,
      long c,
      int cType,
      int ldc,
      int computeType,
      int algo);

  /** The name of a {@code cublasStatus_t} value. */
  static String statusName(int status) {
    return switch (status) {
      case 0 -> "CUBLAS_STATUS_SUCCESS";
      case 1 -> "CUBLAS_STATUS_NOT_INITIALIZED";
      case 3 -> "CUBLAS_STATUS_ALLOC_FAILED";
      case 7 -> "CUBLAS_STATUS_INVALID_VALUE";
      case 8 -> "CUBLAS_STATUS_ARCH_MISMATCH";
      case 11 -> "CUBLAS_STATUS_MAPPING_ERROR";
      case 13 -> "CUBLAS_STATUS_EXECUTION_FAILED";
      case 14 -> "CUBLAS_STATUS_INTERNAL_ERROR";
      case 15 -> "CUBLAS_STATUS_NOT_SUPPORTED";
      case 16 -> "CUBLAS_STATUS_LICENSE_ERROR";
      default -> "CUBLAS_STATUS_" + status;
    };
  }

  /**
   * {@code cublasGetVersion}'s number as {@code major.minor.patch} (it is {@code major * 10000 +
   * minor * 100 + patch}).
   */
  static String versionString(int version) {
    return (version / 10_000) + "." + (version / 100 % 100) + "." + (version % 100);
  }
}
