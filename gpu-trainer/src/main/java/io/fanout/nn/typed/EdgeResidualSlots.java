package io.fanout.nn.typed;

import io.fanout.sample.TypedMiniBatch;
import java.util.Arrays;

/**
 * Which edges of one {@link HgnLayer}'s block the previous layer's block also has: the mini-batch
 * form of Simple-HGN's edge residual, which mixes the previous layer's attention weight of each
 * edge into the next layer's weight of the same edge.
 *
 * <p>Layer {@code l} attends over hop {@code h} and layer {@code l - 1} over hop {@code h + 1}. By
 * the batch's prefix property, destination {@code i} of type {@code t} in hop {@code h} (level
 * {@code h - 1}) is destination {@code i} of type {@code t} in hop {@code h + 1} (level {@code h}),
 * and source {@code j} of type {@code s} in hop {@code h} (level {@code h}) is source {@code j} in
 * hop {@code h + 1} (level {@code h + 1}): the same type-local index names the same vertex. So an
 * edge {@code (i, j, relation)} of hop {@code h} is matched with the edge {@code (i, j, relation)}
 * of hop {@code h + 1}: the {@code k}-th occurrence of a source in a row's relation segment with
 * the {@code k}-th occurrence in the other block's segment (repeated edges pair up in edge order);
 * the self loops always match. With full neighborhoods both hops list the same edges, so every edge
 * matches and the residual is HGB's; with sampled fanouts the hops draw different neighbors and
 * only the edges both drew match.
 *
 * <p>Slots follow {@link HgnLayer}'s merged block of a hop: destination rows in type order, each
 * its self loop, then every relation into its type in relation order, each in edge order.
 */
final class EdgeResidualSlots {
  private EdgeResidualSlots() {}

  /**
   * For every slot of hop {@code hop}'s merged block, the slot of the same edge in hop {@code hop +
   * 1}'s merged block, or -1 when that block lacks it.
   */
  static int[] match(TypedBatchTensors b, TypedModelConfig cfg, int hop) {
    TypedMiniBatch mb = b.batch();
    int[] prevStart = rowStarts(b, cfg, hop + 1);
    int slots = rowStarts(b, cfg, hop)[b.totalRows(hop - 1)];
    int[] out = new int[slots];
    Arrays.fill(out, -1);
    int q = 0;
    for (int t = 0; t < cfg.numTypes(); t++) {
      int[] into = cfg.relationsInto(t);
      for (int i = 0; i < b.rows(t, hop - 1); i++) {
        int p = prevStart[b.rowOffset(hop, t) + i];
        out[q++] = p++; // the self loops
        for (int r : into) {
          int[] rp = mb.indptr(hop, r);
          int[] pp = mb.indptr(hop + 1, r);
          int n = rp[i + 1] - rp[i];
          int m = pp[i + 1] - pp[i];
          segment(mb.indices(hop, r), rp[i], n, mb.indices(hop + 1, r), pp[i], m, p, out, q);
          q += n;
          p += m;
        }
      }
    }
    return out;
  }

  /**
   * The first slot of every destination row of hop {@code hop}'s merged block, and the slot count
   * after the last.
   */
  static int[] rowStarts(TypedBatchTensors b, TypedModelConfig cfg, int hop) {
    TypedMiniBatch mb = b.batch();
    int rows = b.totalRows(hop - 1);
    int[] start = new int[rows + 1];
    long q = 0;
    for (int t = 0; t < cfg.numTypes(); t++) {
      int[] into = cfg.relationsInto(t);
      int off = b.rowOffset(hop - 1, t);
      for (int i = 0; i < b.rows(t, hop - 1); i++) {
        start[off + i] = (int) q;
        q++;
        for (int r : into) {
          int[] rp = mb.indptr(hop, r);
          q += rp[i + 1] - rp[i];
        }
        if (q > Integer.MAX_VALUE - 8) {
          throw new IllegalArgumentException("a typed batch hop of more than 2^31 edges");
        }
      }
    }
    start[rows] = (int) q;
    return start;
  }

  /**
   * Matches the {@code n} sources {@code a[a0 ..)} with the {@code m} sources {@code c[c0 ..)}:
   * {@code out[q + x]} is {@code p} plus the position in {@code c} of the source that pairs with
   * {@code a[a0 + x]}, left as it is (-1) for a source without one.
   */
  private static void segment(
      int[] a, int a0, int n, int[] c, int c0, int m, int p, int[] out, int q) {
    if (n == m && Arrays.equals(a, a0, a0 + n, c, c0, c0 + m)) {
      for (int x = 0; x < n; x++) {
        out[q + x] = p + x;
      }
      return;
    }
    long[] ka = keys(a, a0, n);
    long[] kc = keys(c, c0, m);
    int x = 0;
    int y = 0;
    while (x < n && y < m) {
      long va = ka[x] >>> 32;
      long vc = kc[y] >>> 32;
      if (va == vc) {
        out[q + (int) ka[x]] = p + (int) kc[y];
        x++;
        y++;
      } else if (va < vc) {
        x++;
      } else {
        y++;
      }
    }
  }

  /** {@code (source << 32) | position} of each of the {@code n} sources at {@code a0}, sorted. */
  private static long[] keys(int[] a, int a0, int n) {
    long[] k = new long[n];
    for (int x = 0; x < n; x++) {
      k[x] = ((long) a[a0 + x] << 32) | x;
    }
    Arrays.sort(k);
    return k;
  }
}
