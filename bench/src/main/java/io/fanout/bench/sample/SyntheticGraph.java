package io.fanout.bench.sample;

import io.fanout.bench.store.InMemoryGraphStores;
import io.fanout.graph.ArrayCsrGraph;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.VertexTable;
import io.fanout.sample.SampleHash;
import java.util.Arrays;

/**
 * An in-memory power-law graph for benchmarks: in-degrees follow a Zipf-like law with exponent
 * about 2 (scaled to the requested edge count), in-neighbors are uniform. Deterministic in the
 * seed.
 */
final class SyntheticGraph {
  private SyntheticGraph() {}

  static ArrayCsrGraph generate(int vertices, long edges, long seed) {
    return generate(vertices, vertices, edges, seed);
  }

  /**
   * A bipartite version: {@code vertices} rows (destinations) with the in-degree law above, whose
   * in-neighbors are uniform over {@code sources} ids; {@code sources == vertices} is {@link
   * #generate(int, long, long)}.
   */
  static ArrayCsrGraph generate(int sources, int vertices, long edges, long seed) {
    if (edges > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("synthetic graphs hold at most 2^31 edges");
    }
    long[] ptr = new long[vertices + 1];
    double[] weight = new double[vertices];
    double total = 0;
    for (int v = 0; v < vertices; v++) {
      // Rank of v in a random permutation, so hubs are spread over the id space.
      long rank = 1 + Long.remainderUnsigned(SampleHash.mix(seed ^ v), vertices);
      weight[v] = 1.0 / Math.pow(rank, 0.8);
      total += weight[v];
    }
    long assigned = 0;
    for (int v = 0; v < vertices; v++) {
      long d = (long) Math.floor(weight[v] / total * edges);
      ptr[v + 1] = ptr[v] + d;
      assigned += d;
    }
    // Hand out the rounding remainder one edge per vertex in id order.
    long extra = edges - assigned;
    long shift = 0;
    for (int v = 0; v < vertices; v++) {
      if (extra > 0) {
        shift++;
        extra--;
      }
      ptr[v + 1] += shift;
    }
    int[] idx = new int[(int) edges];
    for (int e = 0; e < idx.length; e++) {
      idx[e] = (int) Long.remainderUnsigned(SampleHash.mix(seed * 31 + e), sources);
    }
    for (int v = 0; v < vertices; v++) {
      Arrays.sort(idx, (int) ptr[v], (int) ptr[v + 1]);
    }
    return new ArrayCsrGraph(ptr, idx);
  }

  /**
   * Writes {@code g} (no features) as a graph store of {@code partitions} equal vertex ranges, so
   * benchmarks can sample the memory-mapped path. With {@code weights} (by CSR position; null =
   * none) the store is weighted.
   */
  static void writeStore(
      CsrGraph g, VertexTable vt, float[] weights, java.nio.file.Path store, int partitions) {
    int classes = 0;
    for (int v = 0; v < g.numVertices(); v++) {
      classes = Math.max(classes, vt.label(v) + 1);
    }
    InMemoryGraphStores.write(
        store, g, vt, null, 0, weights, partitions, classes, "bench-sample synthetic graph");
  }

  /**
   * A weight per CSR position of a graph of {@code edges} edges: one in eight zero, the others
   * spread over (0, 10], from the sampler's hash of {@code seed} and the position.
   */
  static float[] weights(long edges, long seed) {
    if (edges > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("more than 2^31 edges: weights are an in-memory array");
    }
    float[] w = new float[(int) edges];
    for (int q = 0; q < w.length; q++) {
      long h = SampleHash.draw(seed, q);
      w[q] = (h & 7) == 0 ? 0f : (float) (((h >>> 11) + 1) * 0x1.0p-53 * 10);
    }
    return w;
  }

  /** Every vertex in the train split, labels in 0..9. */
  static VertexTable vertices(int n) {
    return VertexTables.of(n, v -> v % 10, v -> 1);
  }
}
