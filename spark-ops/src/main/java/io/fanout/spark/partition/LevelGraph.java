package io.fanout.spark.partition;

import java.util.Arrays;

/**
 * One level of {@link MultilevelGraphPartitioner} held in the driver: vertex {@code i} has id
 * {@code ids[i]} (ascending) and weight {@code vw[i]}; its edges are {@code adj[j]} (vertex
 * indexes, ascending) with weights {@code w[j]} for {@code xadj[i] <= j < xadj[i + 1]}, both
 * directions of every undirected edge, no self loops.
 */
record LevelGraph(long[] ids, long[] vw, int[] xadj, int[] adj, long[] w) {

  int n() {
    return ids.length;
  }

  /**
   * The graph of vertices {@code ids} (ascending) with weights {@code vw} and the directed edges
   * {@code src[e] -> dst[e]} (vertex indexes, any order, each pair once) of weight {@code w[e]}.
   */
  static LevelGraph of(long[] ids, long[] vw, int[] src, int[] dst, long[] w) {
    int n = ids.length;
    int[] xadj = new int[n + 1];
    for (int s : src) {
      xadj[s + 1]++;
    }
    int maxDegree = 0;
    for (int i = 0; i < n; i++) {
      maxDegree = Math.max(maxDegree, xadj[i + 1]);
      xadj[i + 1] += xadj[i];
    }
    int[] fill = Arrays.copyOf(xadj, n);
    int[] adj = new int[src.length];
    long[] ew = new long[src.length];
    for (int e = 0; e < src.length; e++) {
      int at = fill[src[e]]++;
      adj[at] = dst[e];
      ew[at] = w[e];
    }
    // each row by ascending neighbor: (neighbor << 32 | position in the row), sorted
    long[] key = new long[maxDegree];
    long[] rowW = new long[maxDegree];
    for (int i = 0; i < n; i++) {
      int from = xadj[i];
      int len = xadj[i + 1] - from;
      for (int j = 0; j < len; j++) {
        key[j] = ((long) adj[from + j] << 32) | j;
        rowW[j] = ew[from + j];
      }
      Arrays.sort(key, 0, len);
      for (int j = 0; j < len; j++) {
        adj[from + j] = (int) (key[j] >>> 32);
        ew[from + j] = rowW[(int) key[j]];
      }
    }
    return new LevelGraph(ids, vw, xadj, adj, ew);
  }
}
