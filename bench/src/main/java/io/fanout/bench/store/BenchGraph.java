package io.fanout.bench.store;

import io.fanout.store.InvalidInputException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;

/**
 * A graph held in the driver for {@code bench-partition}: vertices numbered by their position, each
 * undirected edge once per end, no self loops, no repeats.
 */
record BenchGraph(Map<Object, Integer> index, int[] xadj, int[] adj) {
  int n() {
    return xadj.length - 1;
  }

  /** From rows {@code (id)} and {@code (src, dst)}; edges with an unknown end are left out. */
  static BenchGraph of(List<Row> ids, List<Row> edges) {
    Map<Object, Integer> index = new HashMap<>(ids.size() * 2);
    for (Row r : ids) {
      index.putIfAbsent(r.get(0), index.size());
    }
    long[] keys = new long[edges.size() * 2];
    int m = 0;
    for (Row r : edges) {
      Integer a = index.get(r.get(0));
      Integer b = index.get(r.get(1));
      if (a != null && b != null && !a.equals(b)) {
        keys[m++] = ((long) a << 32) | b;
        keys[m++] = ((long) b << 32) | a;
      }
    }
    Arrays.sort(keys, 0, m);
    int n = index.size();
    int[] xadj = new int[n + 1];
    int[] adj = new int[m];
    int out = 0;
    for (int i = 0; i < m; i++) {
      if (i > 0 && keys[i] == keys[i - 1]) {
        continue;
      }
      xadj[(int) (keys[i] >>> 32) + 1]++;
      adj[out++] = (int) keys[i];
    }
    for (int v = 0; v < n; v++) {
      xadj[v + 1] += xadj[v];
    }
    return new BenchGraph(index, xadj, Arrays.copyOf(adj, out));
  }

  /** The part of every vertex from rows {@code (id, part)}. */
  int[] parts(List<Row> assignment) {
    int[] part = new int[n()];
    Arrays.fill(part, -1);
    for (Row r : assignment) {
      Integer v = index.get(r.get(0));
      if (v != null) {
        part[v] = r.getInt(1);
      }
    }
    for (int v = 0; v < part.length; v++) {
      if (part[v] < 0) {
        throw new InvalidInputException("vertex " + v + " got no part from the partitioner");
      }
    }
    return part;
  }

  /** Fraction of undirected edges whose ends lie in different parts. */
  double cut(int[] part) {
    long cut = 0;
    for (int v = 0; v < n(); v++) {
      for (int e = xadj[v]; e < xadj[v + 1]; e++) {
        if (part[adj[e]] != part[v]) {
          cut++;
        }
      }
    }
    return adj.length == 0 ? 0 : (double) cut / adj.length;
  }

  /** Largest part over the average part, in vertices. */
  static double imbalance(int[] part, int k) {
    long[] size = new long[k];
    for (int p : part) {
      size[p]++;
    }
    long max = 0;
    for (long s : size) {
      max = Math.max(max, s);
    }
    return part.length == 0 ? 1 : (double) max * k / part.length;
  }
}
