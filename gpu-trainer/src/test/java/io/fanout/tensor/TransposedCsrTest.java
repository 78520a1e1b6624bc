package io.fanout.tensor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The transposed CSR behind the CUDA backward passes, and the order in which the aggregate_backward
 * and spmm_transposed kernels walk it (emulated here element by element, as one device thread
 * would), reproduce the CPU backend's scatter bit for bit.
 */
class TransposedCsrTest {
  @Test
  void transposeListsEachSourcesEdgesInEdgeOrder() {
    // rows 0..2 over sources 0..3, read through offsets into larger arrays
    int[] indptr = {99, 2, 4, 4, 7};
    int[] indices = {-1, -1, 3, 1, 1, 3, 0, 1, 3};
    TransposedCsr t = TransposedCsr.build(indptr, 1, indices, 0, 3, 0);
    assertThat(t.srcRows()).isEqualTo(4);
    assertThat(t.nnz()).isEqualTo(5);
    int[] ptr = new int[5];
    for (int s = 0; s <= 4; s++) {
      ptr[s] = t.ptr(s);
    }
    assertThat(ptr).containsExactly(0, 1, 3, 3, 5);
    int[] dstPos = new int[10];
    for (int k = 0; k < 5; k++) {
      dstPos[2 * k] = t.dst(k);
      dstPos[2 * k + 1] = t.pos(k);
    }
    // source 0: edge 6 of row 2; source 1: edges 3 (row 0), 4 (row 2); source 3: 2 (row 0), 5
    assertThat(dstPos).containsExactly(2, 6, 0, 3, 2, 4, 0, 2, 2, 5);
  }

  @Test
  void aggregateBackwardOrderMatchesTheCpuBitForBit() {
    Random r = new Random(7);
    CpuBackend cpu = new CpuBackend();
    for (Aggregation mode : Aggregation.values()) {
      for (int self = 0; self <= 1; self++) {
        int rows = 40;
        int srcRows = 90;
        int cols = 5;
        int[] indptr = new int[rows + 1];
        int[] indices = new int[rows * 12];
        for (int i = 0; i < rows; i++) {
          int deg = r.nextInt(12);
          for (int d = 0; d < deg; d++) {
            // self loops and repeated sources included
            indices[indptr[i] + d] = d == 0 ? i : r.nextInt(srcRows);
          }
          indptr[i + 1] = indptr[i] + deg;
        }
        float[] dOut = random(r, rows * cols);
        float[] base = random(r, srcRows * cols);
        float[] expected = base.clone();
        cpu.aggregateBackward(
            mode,
            cpu.wrap(indptr),
            0,
            cpu.wrap(indices),
            0,
            rows,
            self,
            cpu.wrap(dOut),
            0,
            cols,
            cpu.wrap(expected),
            0);
        TransposedCsr t = TransposedCsr.build(indptr, 0, indices, 0, rows, self != 0 ? rows : 0);
        float[] got = base.clone();
        for (int s = 0; s < t.srcRows(); s++) {
          for (int j = 0; j < cols; j++) {
            got[s * cols + j] =
                aggregateBackwardElement(mode, indptr, rows, self, t, dOut, cols, s, j, got);
          }
        }
        assertThat(got).as("%s self=%d", mode, self).containsExactly(expected);
      }
    }
  }

  /** One thread of aggregate.cu's aggregate_backward, in Java float arithmetic. */
  private static float aggregateBackwardElement(
      Aggregation mode,
      int[] indptr,
      int rows,
      int selfWeight,
      TransposedCsr t,
      float[] dOut,
      int cols,
      int s,
      int j,
      float[] dSrc) {
    float acc = dSrc[s * cols + j];
    boolean self = selfWeight != 0 && s < rows;
    for (int k = t.ptr(s); k < t.ptr(s + 1); k++) {
      int i = t.dst(k);
      if (self && i >= s) {
        acc += weight(mode, indptr, s, selfWeight) * dOut[s * cols + j];
        self = false;
      }
      acc += weight(mode, indptr, i, selfWeight) * dOut[i * cols + j];
    }
    if (self) {
      acc += weight(mode, indptr, s, selfWeight) * dOut[s * cols + j];
    }
    return acc;
  }

  private static float weight(Aggregation mode, int[] indptr, int i, int selfWeight) {
    int cnt = indptr[i + 1] - indptr[i] + selfWeight;
    return mode == Aggregation.MEAN && cnt > 1 ? 1f / cnt : 1f;
  }

  @Test
  void spmmTransposedOrderMatchesTheCpuBitForBit() {
    Random r = new Random(11);
    CpuBackend cpu = new CpuBackend();
    int rows = 30;
    int featCols = 50;
    int n = 4;
    int[] ptr = new int[rows + 1];
    int[] col = new int[rows * 8];
    for (int i = 0; i < rows; i++) {
      int nz = r.nextInt(8);
      int c = 0;
      for (int d = 0; d < nz; d++) {
        c += 1 + r.nextInt(5);
        col[ptr[i] + d] = Math.min(c, featCols - 1);
      }
      ptr[i + 1] = ptr[i] + nz;
    }
    float[] val = random(r, col.length);
    float[] dy = random(r, rows * n);
    float[] base = random(r, featCols * n);
    float[] expected = base.clone();
    cpu.spmmTransposed(
        cpu.wrap(ptr),
        cpu.wrap(col),
        cpu.wrap(val),
        rows,
        cpu.wrap(dy),
        0,
        n,
        cpu.wrap(expected),
        0);
    TransposedCsr t = TransposedCsr.build(ptr, 0, col, 0, rows, 0);
    float[] got = base.clone();
    for (int g = 0; g < t.srcRows(); g++) {
      for (int j = 0; j < n; j++) {
        float acc = got[g * n + j];
        for (int k = t.ptr(g); k < t.ptr(g + 1); k++) {
          acc += val[t.pos(k)] * dy[t.dst(k) * n + j];
        }
        got[g * n + j] = acc;
      }
    }
    assertThat(got).containsExactly(expected);
  }

  private static float[] random(Random r, int n) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) r.nextGaussian();
    }
    return a;
  }
}
