package io.fanout.tensor.cuda;

import jcuda.Pointer;
import jcuda.driver.CUstream;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;
import jcuda.jcublas.cublasMath;
import jcuda.jcublas.cublasOperation;
import jcuda.jcublas.cublasStatus;
import jcuda.runtime.cudaStream_t;

/**
 * Dense products through cuBLAS (JCublas2), used when {@code libcublas.so.12} loads. cuBLAS is
 * column-major; a row-major {@code m x n} matrix is the column-major {@code n x m} transpose, so
 * {@code C = op(A) op(B)} is computed as {@code C^T = op(B)^T op(A)^T} with the operands swapped,
 * as the CPU backend does with BLAS. Default math mode: FP32 throughout, no TF32 tensor ops.
 */
final class CublasGemm implements AutoCloseable {
  private final cublasHandle handle = new cublasHandle();

  private CublasGemm(CUstream stream) {
    JCublas2.setExceptionsEnabled(false);
    check("cublasCreate", JCublas2.cublasCreate(handle));
    try {
      check("cublasSetStream", JCublas2.cublasSetStream(handle, new cudaStream_t(stream)));
      check(
          "cublasSetMathMode", JCublas2.cublasSetMathMode(handle, cublasMath.CUBLAS_DEFAULT_MATH));
    } catch (RuntimeException e) {
      JCublas2.cublasDestroy(handle);
      throw e;
    }
  }

  /**
   * cuBLAS on {@code stream}, or null with the reason in {@code why[0]} when the library or its
   * JCuda binding does not load here.
   */
  static CublasGemm tryCreate(CUstream stream, String[] why) {
    try {
      return new CublasGemm(stream);
    } catch (LinkageError | CudaException e) {
      why[0] = CudaDriver.firstLine(e.getMessage());
      return null;
    }
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
    check(
        "cublasSgemm",
        JCublas2.cublasSgemm(
            handle,
            transB ? cublasOperation.CUBLAS_OP_T : cublasOperation.CUBLAS_OP_N,
            transA ? cublasOperation.CUBLAS_OP_T : cublasOperation.CUBLAS_OP_N,
            n,
            m,
            k,
            Pointer.to(new float[] {alpha}),
            b,
            Math.max(ldb, 1),
            a,
            Math.max(lda, 1),
            Pointer.to(new float[] {beta}),
            c,
            Math.max(n, 1)));
  }

  private static void check(String call, int status) {
    if (status != cublasStatus.CUBLAS_STATUS_SUCCESS) {
      throw new CudaException(call, status, cublasStatus.stringFor(status));
    }
  }

  @Override
  public void close() {
    check("cublasDestroy", JCublas2.cublasDestroy(handle));
  }
}
