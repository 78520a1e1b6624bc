package io.fanout.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The CPU backend's own parallel splits (dense products in row or column blocks of one-threaded
 * BLAS calls) and its Vector API dropout give the same bits as the plain single calls and loops.
 */
class CpuKernelsSplitTest {
  private static float[] rand(int n, long key) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = CounterRng.uniform(key, i) * 2f - 1f;
    }
    return a;
  }

  @Test
  void splitProductsEqualOneReferenceCallBitForBit() {
    // Tall (split by rows of C) and wide (split by columns), above the split threshold, with
    // sizes that are not multiples of the 16-row alignment, and offsets on every operand.
    int[][] shapes = {{1001, 70, 97}, {37, 1003, 131}};
    for (int[] s : shapes) {
      int m = s[0];
      int n = s[1];
      int k = s[2];
      assertThat((long) m * n * k).isGreaterThanOrEqualTo(CpuGemm.MIN_GEMM_WORK);
      for (boolean ta : new boolean[] {false, true}) {
        for (boolean tb : new boolean[] {false, true}) {
          for (float beta : new float[] {0f, 1f}) {
            float[] a = rand(5 + m * k, 1);
            float[] b = rand(3 + k * n, 2);
            float[] c0 = rand(7 + m * n, 3);
            float[] split = c0.clone();
            CpuGemm.gemm(CpuGemm.REFERENCE, ta, tb, m, n, k, 0.5f, a, 5, b, 3, beta, split, 7);
            float[] whole = c0.clone();
            CpuGemm.REFERENCE.sgemm(
                tb ? "T" : "N",
                ta ? "T" : "N",
                n,
                m,
                k,
                0.5f,
                b,
                3,
                tb ? k : n,
                a,
                5,
                ta ? m : k,
                beta,
                whole,
                7,
                n);
            assertThat(split).as("m=%d n=%d k=%d ta=%s tb=%s", m, n, k, ta, tb).isEqualTo(whole);
          }
        }
      }
    }
  }

  @Test
  void splitSparseProductsEqualTheSerialLoopsBitForBit() {
    assumeTrue(ColumnParallel.THREADS > 1, "one CPU thread: nothing is split");
    // A bag-of-words-like CSR (~2% dense, some empty rows, repeated columns across rows) above the
    // split threshold, with offsets on the dense operands and every beta the layers use.
    int rows = 3001;
    int cols = 2003;
    int n = 131;
    int[] ptr = new int[rows + 1];
    int[] col = new int[rows * 60];
    float[] val = new float[col.length];
    int nnz = 0;
    for (int i = 0; i < rows; i++) {
      int k = (int) (CounterRng.uniform(7, i) * 80);
      for (int t = 0; t < k && i % 17 != 0; t++) {
        // skewed like word counts: low columns far more frequent than high ones
        float u = CounterRng.uniform(8, nnz);
        col[nnz] = (int) (u * u * u * cols);
        val[nnz] = CounterRng.uniform(9, nnz) * 4f - 2f;
        nnz++;
      }
      ptr[i + 1] = nnz;
    }
    assertThat((long) nnz * n).isGreaterThanOrEqualTo(ColumnParallel.MIN_WORK);
    float[] b = rand(5 + cols * n, 10);
    for (float beta : new float[] {0f, 1f, 0.5f}) {
      float[] c0 = rand(3 + rows * n, 11);
      float[] split = c0.clone();
      float[] serial = c0.clone();
      CpuGraphKernels.spmm(ptr, col, val, rows, b, 5, n, beta, split, 3);
      CpuGraphKernels.spmmRows(ptr, col, val, 0, rows, b, 5, n, beta, serial, 3);
      assertThat(Arrays.equals(split, serial)).as("spmm beta=%s", beta).isTrue();
    }
    float[] dy = rand(2 + rows * n, 12);
    float[] g0 = rand(4 + cols * n, 13);
    float[] split = g0.clone();
    float[] serial = g0.clone();
    CpuGraphKernels.spmmTransposed(ptr, col, val, rows, dy, 2, n, split, 4);
    CpuGraphKernels.spmmTransposedSerial(ptr, col, val, rows, dy, 2, n, serial, 4);
    assertThat(Arrays.equals(split, serial)).as("spmmTransposed").isTrue();
    assertThat(serial).isNotEqualTo(g0);
  }

  @Test
  void balancedBlocksCutPrefixSumsIntoAboutEqualParts() {
    int[] ptr = {5, 5, 105, 106, 107, 108, 208, 208};
    int[] b = CpuGraphKernels.balancedBlocks(ptr, 7, 4);
    assertThat(b).containsExactly(0, 2, 3, 6, 7);
    assertThat(CpuGraphKernels.balancedBlocks(ptr, 7, 100)).hasSize(8).startsWith(0).endsWith(7);
    assertThat(CpuGraphKernels.balancedBlocks(new int[] {0}, 0, 4)).containsExactly(0, 0);
    int[] flat = new int[1001];
    for (int i = 0; i <= 1000; i++) {
      flat[i] = 3 * i;
    }
    assertThat(CpuGraphKernels.balancedBlocks(flat, 1000, 4))
        .containsExactly(0, 250, 500, 750, 1000);
  }

  @Test
  void vectorDropoutEqualsTheScalarLoopBitForBit() {
    assumeTrue(CpuDropout.VECTOR_DROPOUT, "the Vector API is not available here");
    // Lengths around vector and mask-word boundaries and one above the parallel threshold.
    int[] lengths = {0, 1, 7, 8, 31, 32, 33, 1000, CpuDropout.VECTOR_MIN + 13, 2_100_003};
    for (int n : lengths) {
      for (float p : new float[] {0.1f, 0.5f, 0.9f}) {
        float[] x = rand(n + 4, n);
        x[1] = Float.NaN;
        x[2] = -0f;
        long key = 1234 + n;
        float[] scalar = new float[n + 5];
        float[] vector = new float[n + 5];
        int[] keepS = new int[(n + 31) / 32];
        int[] keepV = new int[keepS.length];
        CpuDropout.dropout(x, 4 % (n + 1), scalar, 5, n, p, key, keepS, false);
        CpuDropout.dropout(x, 4 % (n + 1), vector, 5, n, p, key, keepV, true);
        assertThat(vector).as("n=%d p=%s masked", n, p).isEqualTo(scalar);
        assertThat(keepV).as("n=%d p=%s mask", n, p).isEqualTo(keepS);
        float[] inS = x.clone();
        float[] inV = x.clone();
        CpuDropout.dropout(inS, 3, inS, 3, n, p, key, null, false);
        CpuDropout.dropout(inV, 3, inV, 3, n, p, key, null, true);
        assertThat(inV).as("n=%d p=%s in place", n, p).isEqualTo(inS);
      }
    }
  }

  @Test
  void scalarDropoutKeepsWhatTheCounterHashKeeps() {
    int n = 100_003;
    float[] x = rand(n, 5);
    float[] got = new float[n];
    int[] keep = new int[(n + 31) / 32];
    CpuDropout.dropout(x, 0, got, 0, n, 0.3f, 42, keep, false);
    for (int i = 0; i < n; i++) {
      boolean kept = CounterRng.uniform(42, i) >= 0.3f;
      assertThat(got[i]).isEqualTo(kept ? x[i] * (1f / 0.7f) : 0f);
      assertThat((keep[i >>> 5] >>> (i & 31) & 1) == 1).isEqualTo(kept);
    }
  }
}
