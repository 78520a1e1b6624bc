package io.fanout.tensor;

import static io.fanout.tensor.CheckedTensors.range;

/**
 * The checks a {@link CheckingBackend} makes on the arguments of the attention operations before
 * running them on the CPU: shapes positive, the block's offsets non-decreasing and consistent with
 * its edge count, every source and relation id inside the score and feature tensors, and every
 * range inside its tensor.
 */
final class CheckedAttention {
  private CheckedAttention() {}

  static void shape(int rows, int heads, int headDim, String what) {
    if (rows < 0 || heads <= 0 || headDim <= 0) {
      throw new IllegalStateException(
          "checked backend: "
              + what
              + " with rows "
              + rows
              + ", heads "
              + heads
              + ", head dim "
              + headDim
              + " (rows >= 0, heads and head dim > 0)");
    }
  }

  /**
   * Checks {@code e} (its tensors already unwrapped into {@code c}) and returns the number of
   * source rows its edges read: the largest source id + 1, at least {@code rows} with self loops.
   */
  static int edges(AttentionEdges e, CpuAttentionKernels.Edges c) {
    String what = "attention block";
    if (e.rows() < 0 || e.edges() < 0) {
      throw new IllegalStateException(
          "checked backend: " + what + " with " + e.rows() + " rows, " + e.edges() + " edges");
    }
    range(e.indptr(), e.indptrOff(), e.rows() + 1, what + " offsets");
    int base = c.indptr()[c.pOff()];
    for (int i = 0; i < e.rows(); i++) {
      if (c.indptr()[c.pOff() + i + 1] < c.indptr()[c.pOff() + i]) {
        throw new IllegalStateException(
            "checked backend: " + what + " offsets decrease at row " + i);
      }
    }
    int nnz = c.indptr()[c.pOff() + e.rows()] - base;
    if (nnz != e.edges()) {
      throw new IllegalStateException(
          "checked backend: " + what + " says " + e.edges() + " edges, its offsets hold " + nnz);
    }
    range(e.indices(), e.indicesOff() + base, nnz, what + " indices");
    int srcRows = e.selfLoops() ? e.rows() : 0;
    for (int q = base; q < base + nnz; q++) {
      int j = c.indices()[c.iOff() + q];
      if (j < 0) {
        throw new IllegalStateException(
            "checked backend: " + what + " edge " + q + " has source row " + j);
      }
      srcRows = Math.max(srcRows, j + 1);
    }
    if (e.relations() != null) {
      range(e.relations(), e.relationsOff() + base, nnz, what + " relations");
      for (int q = base; q < base + nnz; q++) {
        relation(c.rel()[c.rOff() + q], e.relationCount(), "edge " + q);
      }
      if (e.selfLoops()) {
        relation(e.selfRelation(), e.relationCount(), "the self loops");
      }
    }
    return srcRows;
  }

  private static void relation(int r, int count, String where) {
    if (r < 0 || r >= count) {
      throw new IllegalStateException(
          "checked backend: attention block: "
              + where
              + " has relation "
              + r
              + ", expected 0.."
              + (count - 1));
    }
  }

  /** Fails when {@code v} is missing or its {@code rows x width} matrix is outside its tensor. */
  static void matrix(FloatView v, long rows, long width, String what) {
    if (v == null) {
      throw new IllegalStateException("checked backend: " + what + " missing");
    }
    matrix(v.tensor(), v.offset(), rows, width, what);
  }

  /** Fails when the {@code rows x width} matrix at {@code off} is outside {@code t}. */
  static void matrix(Tensor t, int off, long rows, long width, String what) {
    long n = rows * width;
    if (n > Integer.MAX_VALUE) {
      throw new IllegalStateException("checked backend: " + what + " of " + n + " elements");
    }
    range(t, off, (int) n, what);
  }
}
