package io.fanout.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import java.util.Arrays;

/**
 * Verifies a sampled {@link MiniBatch} against its graph: the prefix structure of the node list,
 * block shapes, that every sampled edge exists, that each destination got {@code min(fanout,
 * degree)} neighbors, and that no neighbor was picked more often than it occurs in the row (no node
 * twice for a destination when rows have no duplicates). Weighted batches count and match only the
 * positive-weight entries of a row. For tests and {@code sample}'s self-checks; costs a binary
 * search per edge.
 */
public final class BatchChecks {
  private BatchChecks() {}

  /**
   * @throws IllegalStateException describing the first violation
   */
  public static void verify(MiniBatch b, CsrGraph g, int[] fanouts) {
    verify(b, g, null, fanouts);
  }

  /**
   * {@link #verify(MiniBatch, CsrGraph, int[])} for a batch sampled with {@code weights} (null =
   * uniform): each destination got {@code min(fanout, positive-weight entries)} neighbors, each
   * picked at most as often as it occurs with a positive weight.
   *
   * @throws IllegalStateException describing the first violation
   */
  public static void verify(MiniBatch b, CsrGraph g, EdgeWeights weights, int[] fanouts) {
    int layers = b.layers();
    if (layers != fanouts.length) {
      fail(b, "has " + layers + " blocks, expected " + fanouts.length);
    }
    int[] nodes = b.nodes();
    int[] sorted = nodes.clone();
    Arrays.sort(sorted);
    for (int i = 0; i < sorted.length; i++) {
      if (sorted[i] < 0 || sorted[i] >= g.numVertices()) {
        fail(b, "node " + sorted[i] + " is not a vertex");
      }
      if (i > 0 && sorted[i] == sorted[i - 1]) {
        fail(b, "node " + sorted[i] + " appears twice");
      }
    }
    for (int h = 1; h <= layers; h++) {
      int dst = b.layerSize(h - 1);
      int src = b.layerSize(h);
      int[] ptr = b.indptr(h);
      int[] ix = b.indices(h);
      if (ptr.length != dst + 1 || ptr[0] != 0 || ptr[dst] != ix.length) {
        fail(b, "block " + h + " row pointers do not match " + dst + " destinations");
      }
      boolean[] seen = new boolean[src];
      for (int i = 0; i < dst; i++) {
        int v = nodes[i];
        long start = g.rowStart(v);
        long end = g.rowEnd(v);
        int want = NodeSampler.sampleSize(positive(weights, start, end), fanouts[h - 1]);
        if (ptr[i + 1] - ptr[i] != want) {
          fail(
              b,
              "block "
                  + h
                  + " node "
                  + v
                  + " has "
                  + (ptr[i + 1] - ptr[i])
                  + " samples, "
                  + "expected "
                  + want);
        }
        int[] picks = new int[want];
        for (int e = ptr[i]; e < ptr[i + 1]; e++) {
          int l = ix[e];
          if (l < 0 || l >= src) {
            fail(b, "block " + h + " index " + l + " outside [0, " + src + ")");
          }
          seen[l] = true;
          picks[e - ptr[i]] = nodes[l];
        }
        Arrays.sort(picks);
        for (int a = 0; a < picks.length; ) {
          int c = a;
          while (c < picks.length && picks[c] == picks[a]) {
            c++;
          }
          long inRow = occurrences(g, weights, start, end, picks[a]);
          if (inRow == 0) {
            fail(b, "block " + h + " edge " + picks[a] + " -> " + v + " is not in the graph");
          }
          if (c - a > inRow) {
            fail(
                b,
                "block "
                    + h
                    + " picked "
                    + picks[a]
                    + " for "
                    + v
                    + " "
                    + (c - a)
                    + " times, row has it "
                    + inRow
                    + " times");
          }
          a = c;
        }
      }
      for (int l = b.layerSize(h - 1); l < src; l++) {
        if (!seen[l]) {
          fail(b, "node " + nodes[l] + " of hop " + h + " is no sampled neighbor");
        }
      }
    }
  }

  /** Entries of {@code [start, end)} that can be sampled: all, or those of positive weight. */
  private static long positive(EdgeWeights weights, long start, long end) {
    if (weights == null) {
      return end - start;
    }
    long n = 0;
    for (long p = start; p < end; p++) {
      if (weights.weight(p) > 0) {
        n++;
      }
    }
    return n;
  }

  /** Occurrences of {@code u} (of positive weight when weighted) in the sorted row. */
  private static long occurrences(CsrGraph g, EdgeWeights weights, long start, long end, int u) {
    long lo = start;
    long hi = end;
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (g.neighbor(mid) < u) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    long n = 0;
    for (long p = lo; p < end && g.neighbor(p) == u; p++) {
      if (weights == null || weights.weight(p) > 0) {
        n++;
      }
    }
    return n;
  }

  private static void fail(MiniBatch b, String what) {
    throw new IllegalStateException("batch " + b.batch() + " of epoch " + b.epoch() + ": " + what);
  }
}
