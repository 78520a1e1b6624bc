package io.fanout.train;

import io.fanout.nn.Adam;
import io.fanout.nn.EmbeddingTable;
import java.util.Arrays;

/**
 * The mean over data-parallel replicas of sparse row gradients (a learned embedding table's): each
 * replica holds the gradients of its own batch's rows, and every replica gets back the same rows
 * and the same sums, bit for bit, through {@link GradientReducer#allReduceMean} alone.
 *
 * <p>Three exchanges of the reducer: each replica's row count (one slot per rank), then its row ids
 * (16-bit halves, exact in float) and its gradients, each in its own range of one buffer and zero
 * elsewhere. The reducer's mean of one non-zero value and zeros is that value divided by the
 * replica count, so the ids come back exactly (rounded) and each gradient as its share of the mean.
 * The rows are then merged by id: a row several replicas touched gets the sum of their shares in
 * rank order, then batch order. The merged rows are in increasing id order.
 */
public final class SparseRowReduction {
  private SparseRowReduction() {}

  /**
   * One sparse Adam step of {@code table} (no weight decay, {@link Adam}'s betas and epsilon) over
   * this replica's rows {@code ids[0 .. n)} (distinct) with gradients {@code grad[0 .. n*dim)}: on
   * one replica over those rows as they are, on several over the merged rows of {@link
   * #allReduceMean}, so that every replica's table stays the same. Every replica must call it in
   * the same step.
   */
  public static void update(
      GradientReducer reducer, EmbeddingTable table, int[] ids, int n, float[] grad, float lr) {
    if (reducer.worldSize() == 1) {
      table.update(ids, n, grad, 0, lr, Adam.BETA1, Adam.BETA2, Adam.EPS);
      return;
    }
    Rows rows = allReduceMean(reducer, ids, n, grad, table.dim());
    table.update(
        rows.ids(), rows.count(), rows.gradients(), 0, lr, Adam.BETA1, Adam.BETA2, Adam.EPS);
  }

  /** The merged rows: {@code ids[0 .. count)} distinct, their gradients {@code count x dim}. */
  record Rows(int[] ids, int count, float[] gradients) {}

  /**
   * The mean of every replica's rows {@code ids[0 .. n)} with gradients {@code grad[0 .. n*dim)}
   * (distinct ids per replica); every replica must call it with its own rows, in the same step.
   */
  static Rows allReduceMean(GradientReducer reducer, int[] ids, int n, float[] grad, int dim) {
    int world = reducer.worldSize();
    int rank = reducer.rank();
    float[] counts = new float[world];
    counts[rank] = n;
    reducer.allReduceMean(counts, world);
    int[] offset = new int[world + 1];
    for (int r = 0; r < world; r++) {
      offset[r + 1] = Math.addExact(offset[r], exact(counts[r], world));
    }
    int total = offset[world];
    long len = 2L * total + (long) total * dim;
    if (len > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "the replicas' learned rows of one step (" + total + " x " + dim + ") exceed one array");
    }
    float[] buf = new float[(int) len];
    int mine = offset[rank];
    for (int i = 0; i < n; i++) {
      buf[2 * (mine + i)] = ids[i] & 0xFFFF;
      buf[2 * (mine + i) + 1] = ids[i] >>> 16;
    }
    System.arraycopy(grad, 0, buf, 2 * total + mine * dim, n * dim);
    reducer.allReduceMean(buf, buf.length);
    long[] order = new long[total];
    for (int j = 0; j < total; j++) {
      int id = exact(buf[2 * j], world) | (exact(buf[2 * j + 1], world) << 16);
      order[j] = ((long) id << 32) | j;
    }
    Arrays.sort(order);
    int[] merged = new int[total];
    float[] sums = new float[total * dim];
    int count = 0;
    for (int k = 0; k < total; k++) {
      int id = (int) (order[k] >>> 32);
      int j = (int) order[k];
      boolean same = count > 0 && merged[count - 1] == id;
      if (!same) {
        merged[count++] = id;
      }
      int dst = (count - 1) * dim;
      int src = 2 * total + j * dim;
      for (int c = 0; c < dim; c++) {
        sums[dst + c] = same ? sums[dst + c] + buf[src + c] : buf[src + c];
      }
    }
    return new Rows(merged, count, sums);
  }

  /**
   * The integer {@code v} that the reducer's mean over {@code world} replicas turned into {@code
   * x}.
   */
  private static int exact(float x, int world) {
    return Math.round(x * world);
  }
}
