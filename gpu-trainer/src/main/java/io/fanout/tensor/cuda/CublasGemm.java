package io.fanout.tensor.cuda;

import com.sun.jna.NativeLibrary;
import com.sun.jna.ptr.PointerByReference;
import io.fanout.tensor.MatmulPrecision;
import jcuda.Pointer;
import jcuda.driver.CUstream;

/**
 * Dense products through the machine's cuBLAS ({@link CublasLibrary}), used when a libcublas loads.
 * cuBLAS is column-major; a row-major {@code m x n} matrix is the column-major {@code n x m}
 * transpose, so {@code C = op(A) op(B)} is computed as {@code C^T = op(B)^T op(A)^T} with the
 * operands swapped, as the CPU backend does with BLAS. Default math mode: FP32 throughout, no TF32
 * tensor ops, unless {@link #precision} asks for TF32 or BF16 operands (still accumulated in fp32);
 * the atomics mode stays off, so a device, a shape and a precision give the same bits every run.
 */
final class CublasGemm implements AutoCloseable {
  private final com.sun.jna.Pointer handle;
  private final String description;
  private MatmulPrecision precision = MatmulPrecision.FP32;

  private CublasGemm(CUstream stream, String library) {
    PointerByReference h = new PointerByReference();
    check("cublasCreate", CublasNative.cublasCreate_v2(h));
    handle = h.getValue();
    try {
      check(
          "cublasSetStream",
          CublasNative.cublasSetStream_v2(
              handle, new com.sun.jna.Pointer(CudaDriver.address(stream))));
      check("cublasSetMathMode", CublasNative.cublasSetMathMode(handle, CublasNative.DEFAULT_MATH));
      int[] version = new int[1];
      check("cublasGetVersion", CublasNative.cublasGetVersion_v2(handle, version));
      description = "cuBLAS " + CublasNative.versionString(version[0]) + " (" + library + ")";
    } catch (RuntimeException e) {
      CublasNative.cublasDestroy_v2(handle);
      throw e;
    }
  }

  /**
   * cuBLAS on {@code stream} (in the current context), or null with the reason on one line in
   * {@code why[0]} when it is turned off, no libcublas loads here or it cannot start.
   */
  static CublasGemm tryCreate(CUstream stream, String[] why) {
    if (CublasLibrary.disabled()) {
      why[0] = "turned off by -D" + CublasLibrary.LIBRARY_PROPERTY + "=" + CublasLibrary.NONE;
      return null;
    }
    CublasLibrary.Opened<NativeLibrary> lib = CublasLibrary.binding();
    if (!lib.ok()) {
      why[0] = lib.failure();
      return null;
    }
    try {
      return new CublasGemm(stream, lib.name());
    } catch (LinkageError | CudaException e) {
      why[0] = lib.name() + ": " + CudaDriver.firstLine(e.getMessage());
      return null;
    }
  }

  /** The library and its version, e.g. {@code cuBLAS 13.0.2 (libcublas.so.13)}. */
  String description() {
    return description;
  }

  /**
   * The arithmetic of the products from now on: {@code FP32} through {@code cublasSgemm} in the
   * default math mode, the others through {@code cublasGemmEx} with the matching fast compute type.
   */
  void precision(MatmulPrecision p) {
    precision = p;
  }

  void gemm(
      boolean transA,
      boolean transB,
      int m,
      int n,
      int k,
      float alpha,
      Pointer a,
      Pointer b,
      float beta,
      Pointer c) {
    int lda = transA ? m : k;
    int ldb = transB ? k : n;
    if (precision != MatmulPrecision.FP32) {
      check(
          "cublasGemmEx",
          CublasNative.cublasGemmEx(
              handle,
              transB ? CublasNative.OP_T : CublasNative.OP_N,
              transA ? CublasNative.OP_T : CublasNative.OP_N,
              n,
              m,
              k,
              new float[] {alpha},
              CudaDriver.address(b),
              CublasNative.R_32F,
              Math.max(ldb, 1),
              CudaDriver.address(a),
              CublasNative.R_32F,
              Math.max(lda, 1),
              new float[] {beta},
              CudaDriver.address(c),
              CublasNative.R_32F,
              Math.max(n, 1),
              precision == MatmulPrecision.TF32
                  ? CublasNative.COMPUTE_32F_FAST_TF32
                  : CublasNative.COMPUTE_32F_FAST_16BF,
              CublasNative.GEMM_DEFAULT));
      return;
    }
    check(
        "cublasSgemm",
        CublasNative.cublasSgemm_v2(
            handle,
            transB ? CublasNative.OP_T : CublasNative.OP_N,
            transA ? CublasNative.OP_T : CublasNative.OP_N,
            n,
            m,
            k,
            new float[] {alpha},
            CudaDriver.address(b),
            Math.max(ldb, 1),
            CudaDriver.address(a),
            Math.max(lda, 1),
            new float[] {beta},
            CudaDriver.address(c),
            Math.max(n, 1)));
  }

  private static void check(String call, int status) {
    if (status != CublasNative.STATUS_SUCCESS) {
      throw new CudaException(call, status, CublasNative.statusName(status));
    }
  }

  @Override
  public void close() {
    check("cublasDestroy", CublasNative.cublasDestroy_v2(handle));
  }
}
