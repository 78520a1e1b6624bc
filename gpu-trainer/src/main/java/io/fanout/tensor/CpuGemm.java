package io.fanout.tensor;

import dev.ludovic.netlib.blas.BLAS;
import org.netlib.blas.Sgemm;

/**
 * Dense products on the CPU through {@code dev.ludovic.netlib} BLAS (its JNI path calls the system
 * OpenBLAS when it loads, otherwise its Java {@code VectorBLAS}), or the reference BLAS compiled to
 * Java. A single-threaded BLAS's large products are split across the cores in aligned blocks of C.
 *
 * <p>BLAS is column-major; a row-major {@code m x n} matrix is the column-major {@code n x m}
 * transpose, so {@code C = A B} is computed as {@code C^T = B^T A^T} with the operands swapped.
 */
final class CpuGemm {
  static final BLAS BLAS_IMPL = BLAS.getInstance();

  /**
   * Whether the native BLAS runs each call on one thread: {@code OPENBLAS_NUM_THREADS} (else {@code
   * OMP_NUM_THREADS}, as OpenBLAS reads them when it loads) is 1. {@code bin/fanout} sets it so.
   */
  static final boolean NATIVE_SINGLE_THREADED = nativeSingleThreaded();

  /** The fastest BLAS found: native OpenBLAS through JNI when it loads. */
  static final ColumnMajorSgemm FASTEST =
      new ColumnMajorSgemm() {
        @Override
        public void sgemm(
            String transA,
            String transB,
            int m,
            int n,
            int k,
            float alpha,
            float[] a,
            int aOff,
            int lda,
            float[] b,
            int bOff,
            int ldb,
            float beta,
            float[] c,
            int cOff,
            int ldc) {
          BLAS_IMPL.sgemm(
              transA, transB, m, n, k, alpha, a, aOff, lda, b, bOff, ldb, beta, c, cOff, ldc);
        }

        @Override
        public boolean threaded() {
          return BLAS_IMPL.getClass().getSimpleName().equals("JNIBLAS") && !NATIVE_SINGLE_THREADED;
        }
      };

  /** The reference BLAS compiled to Java: the same bits on every CPU. */
  static final ColumnMajorSgemm REFERENCE = Sgemm::sgemm;

  private static boolean nativeSingleThreaded() {
    String v = System.getenv("OPENBLAS_NUM_THREADS");
    if (v == null || v.isBlank()) {
      v = System.getenv("OMP_NUM_THREADS");
    }
    return v != null && v.trim().equals("1");
  }

  /**
   * A column-major BLAS {@code sgemm} with array offsets. Each element of {@code C} is a sum over
   * {@code k} whose order does not depend on {@code m} or {@code n} in the reference BLAS and in
   * OpenBLAS's single-threaded kernels, so a product split into row or column blocks of {@code C}
   * gives the same bits for a given split.
   */
  @FunctionalInterface
  interface ColumnMajorSgemm {
    /** Whether the BLAS spreads one call over threads of its own (then Fanout does not split). */
    default boolean threaded() {
      return false;
    }

    void sgemm(
        String transA,
        String transB,
        int m,
        int n,
        int k,
        float alpha,
        float[] a,
        int aOff,
        int lda,
        float[] b,
        int bOff,
        int ldb,
        float beta,
        float[] c,
        int cOff,
        int ldc);
  }

  /** Products of fewer multiply-adds than this run in one call. */
  static final long MIN_GEMM_WORK = 1L << 22;

  /** Split points of a product are multiples of this many rows or columns. */
  static final int GEMM_ALIGN = 16;

  private CpuGemm() {}

  static void gemm(
      ColumnMajorSgemm sgemm,
      boolean transA,
      boolean transB,
      int m,
      int n,
      int k,
      float alpha,
      float[] a,
      int aOff,
      float[] b,
      int bOff,
      float beta,
      float[] c,
      int cOff) {
    if (m == 0 || n == 0) {
      return;
    }
    if (k == 0) {
      for (int i = 0; i < m * n; i++) {
        c[cOff + i] = beta == 0f ? 0f : beta * c[cOff + i];
      }
      return;
    }
    int lda = transA ? m : k;
    int ldb = transB ? k : n;
    String ta = transA ? "T" : "N";
    String tb = transB ? "T" : "N";
    long work = (long) m * n * k;
    if (sgemm.threaded() || work < MIN_GEMM_WORK) {
      sgemm.sgemm(tb, ta, n, m, k, alpha, b, bOff, ldb, a, aOff, lda, beta, c, cOff, n);
      return;
    }
    // A single-threaded BLAS: split C across the cores ourselves, in blocks of GEMM_ALIGN rows (or
    // columns, when C is wider than tall), each computed by one single-threaded call. The split is
    // a function of the shape and the thread count only. Unlike a threaded OpenBLAS, whose idle
    // workers spin after each call and take a core from the loops that follow, these threads park.
    if (m >= n) {
      ColumnParallel.runAligned(
          work,
          m,
          GEMM_ALIGN,
          (r0, r1) ->
              sgemm.sgemm(
                  tb,
                  ta,
                  n,
                  r1 - r0,
                  k,
                  alpha,
                  b,
                  bOff,
                  ldb,
                  a,
                  aOff + (transA ? r0 : r0 * k),
                  lda,
                  beta,
                  c,
                  cOff + r0 * n,
                  n));
    } else {
      ColumnParallel.runAligned(
          work,
          n,
          GEMM_ALIGN,
          (c0, c1) ->
              sgemm.sgemm(
                  tb,
                  ta,
                  c1 - c0,
                  m,
                  k,
                  alpha,
                  b,
                  bOff + (transB ? c0 * k : c0),
                  ldb,
                  a,
                  aOff,
                  lda,
                  beta,
                  c,
                  cOff + c0,
                  n));
    }
  }
}
