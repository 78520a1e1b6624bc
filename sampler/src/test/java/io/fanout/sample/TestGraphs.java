package io.fanout.sample;

import io.fanout.graph.ArrayCsrGraph;
import io.fanout.graph.VertexTable;
import java.util.Arrays;
import java.util.SplittableRandom;

/** Seeded random graphs with skewed degrees, and an array vertex table. */
final class TestGraphs {
  private TestGraphs() {}

  /**
   * A graph of {@code n} vertices and about {@code m} edges whose sources are skewed toward low ids
   * (power-law-like in-rows); rows sorted; duplicates kept unless {@code dedupe}.
   */
  static ArrayCsrGraph random(int n, int m, long seed, boolean dedupe) {
    SplittableRandom r = new SplittableRandom(seed);
    if (n == 0) {
      return new ArrayCsrGraph(new long[] {0}, new int[0]);
    }
    int[] src = new int[m];
    int[] dst = new int[m];
    for (int e = 0; e < m; e++) {
      dst[e] = (int) (n * Math.pow(r.nextDouble(), 2.5));
      src[e] = r.nextInt(n);
    }
    long[] ptr = new long[n + 1];
    for (int e = 0; e < m; e++) {
      ptr[dst[e] + 1]++;
    }
    for (int v = 0; v < n; v++) {
      ptr[v + 1] += ptr[v];
    }
    int[] idx = new int[m];
    long[] fill = Arrays.copyOf(ptr, n);
    for (int e = 0; e < m; e++) {
      idx[(int) fill[dst[e]]++] = src[e];
    }
    long[] outPtr = new long[n + 1];
    int o = 0;
    for (int v = 0; v < n; v++) {
      Arrays.sort(idx, (int) ptr[v], (int) ptr[v + 1]);
      for (int p = (int) ptr[v]; p < ptr[v + 1]; p++) {
        if (!dedupe || p == ptr[v] || idx[p] != idx[p - 1]) {
          idx[o++] = idx[p];
        }
      }
      outPtr[v + 1] = o;
    }
    return new ArrayCsrGraph(outPtr, Arrays.copyOf(idx, o));
  }

  static ArrayVertexTable vertices(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int[] labels = new int[n];
    byte[] splits = new byte[n];
    for (int v = 0; v < n; v++) {
      labels[v] = r.nextInt(8) - 1;
      splits[v] = (byte) r.nextInt(4);
    }
    return new ArrayVertexTable(labels, splits);
  }

  record ArrayVertexTable(int[] labels, byte[] splits) implements VertexTable {
    @Override
    public int numVertices() {
      return labels.length;
    }

    @Override
    public int label(int v) {
      return labels[v];
    }

    @Override
    public byte split(int v) {
      return splits[v];
    }
  }
}
