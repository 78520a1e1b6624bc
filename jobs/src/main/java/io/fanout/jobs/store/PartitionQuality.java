package io.fanout.jobs.store;

import io.fanout.graph.CsrGraph;
import io.fanout.store.StoreManifest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How well a store's partitions keep edges local: partition {@code p} owns the dense ids {@code
 * [first_vertex, first_vertex + num_vertices)} and the edges into them; an edge is cut when its
 * source lies in another partition.
 */
final class PartitionQuality {
  private PartitionQuality() {}

  /**
   * {@code edge_cut} (fraction of edge rows that are cut), {@code vertices} and {@code edges} per
   * partition, and their imbalance (largest over mean).
   */
  static Map<String, Object> of(StoreManifest m, CsrGraph csr) {
    int parts = m.partitions;
    long[] firsts = new long[parts];
    long[] vertices = new long[parts];
    long[] edges = new long[parts];
    List<StoreManifest.Partition> table = m.partitionTable;
    for (int p = 0; p < parts; p++) {
      firsts[p] = table.get(p).firstVertex;
    }
    long cut = 0;
    int p = 0;
    for (int v = 0; v < csr.numVertices(); v++) {
      while (p + 1 < parts && v >= firsts[p + 1]) {
        p++;
      }
      vertices[p]++;
      long lo = firsts[p];
      long hi = lo + table.get(p).numVertices;
      for (long e = csr.rowStart(v); e < csr.rowEnd(v); e++) {
        int u = csr.neighbor(e);
        if (u < lo || u >= hi) {
          cut++;
        }
      }
      edges[p] += csr.degree(v);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    long total = csr.numEdges();
    out.put("edge_cut", total == 0 ? 0.0 : Math.round((double) cut / total * 1e6) / 1e6);
    out.put("cut_edges", cut);
    out.put("vertex_imbalance", imbalance(vertices));
    out.put("edge_imbalance", imbalance(edges));
    out.put("vertices", vertices);
    out.put("edges", edges);
    return out;
  }

  private static double imbalance(long[] sizes) {
    long max = 0;
    long sum = 0;
    for (long s : sizes) {
      max = Math.max(max, s);
      sum += s;
    }
    return sum == 0 ? 1.0 : Math.round((double) max * sizes.length / sum * 1e6) / 1e6;
  }
}
