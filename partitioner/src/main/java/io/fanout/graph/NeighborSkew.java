package io.fanout.graph;

import java.util.Arrays;

/**
 * How concentrated a graph's neighbor lists are on a few vertices: the share of all neighbor
 * entries that name the most-named vertices. A sampler reads a vertex's features each time it
 * samples it as a neighbor, so this share is what a feature cache (or a reuse of hot vertices'
 * embeddings) holding those vertices can reach on uniform neighbor sampling.
 */
public final class NeighborSkew {
  private NeighborSkew() {}

  /**
   * The share of {@code g}'s neighbor entries that name one of the {@code ceil(fraction x
   * numVertices)} vertices named most often (ties at the cut count once each); 0 for a graph
   * without edges. One {@code int} per vertex, and a sort of them.
   *
   * @throws IllegalArgumentException where {@code fraction} is not in {@code (0, 1]}, or where a
   *     vertex is named more than {@code 2^31 - 1} times
   */
  public static double hotShare(CsrGraph g, double fraction) {
    if (!(fraction > 0 && fraction <= 1)) {
      throw new IllegalArgumentException("fraction " + fraction + ", expected in (0, 1]");
    }
    int n = g.numVertices();
    long edges = g.numEdges();
    if (n == 0 || edges == 0) {
      return 0.0;
    }
    int[] named = new int[n];
    for (int v = 0; v < n; v++) {
      long end = g.rowEnd(v);
      for (long p = g.rowStart(v); p < end; p++) {
        int u = g.neighbor(p);
        if (named[u] == Integer.MAX_VALUE) {
          throw new IllegalArgumentException(
              "vertex " + u + " is a neighbor more than 2^31 - 1 times");
        }
        named[u]++;
      }
    }
    Arrays.sort(named);
    int hot = (int) Math.min(n, Math.ceil(fraction * n));
    long sum = 0;
    for (int i = n - hot; i < n; i++) {
      sum += named[i];
    }
    return (double) sum / edges;
  }
}
