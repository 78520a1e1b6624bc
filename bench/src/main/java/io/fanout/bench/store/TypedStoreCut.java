package io.fanout.bench.store;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The edge cut and vertex imbalance of a typed store's partitions, as {@code bench-partition}
 * reports them: a CSR entry is cut when its source lies in a partition of another index than its
 * destination (partition {@code p} of every type is what one task of {@code sample --mode
 * partitioned --batch-by-partition} answers in place); the imbalance is the largest partition, all
 * types' vertices of one index together, over the mean.
 *
 * @param entries every relation's CSR entries
 * @param cut those whose two ends lie in partitions of different indexes
 * @param vertices every type's vertices
 * @param imbalance the largest partition index's vertices over the mean
 */
record TypedStoreCut(long entries, long cut, long vertices, double imbalance) {

  static TypedStoreCut of(Path store) {
    try (TypedGraphStore g = TypedGraphStore.open(store, false)) {
      TypedSchema s = g.schema();
      long entries = 0;
      long cut = 0;
      for (int r = 0; r < s.numRelations(); r++) {
        CsrGraph csr = g.inNeighbors(r);
        long[] src = g.partitionStarts(s.relation(r).srcType());
        long[] dst = g.partitionStarts(s.relation(r).dstType());
        for (int v = 0; v < csr.numVertices(); v++) {
          int pv = partOf(dst, v);
          for (long i = csr.rowStart(v); i < csr.rowEnd(v); i++) {
            entries++;
            if (partOf(src, csr.neighbor(i)) != pv) {
              cut++;
            }
          }
        }
      }
      long[] sizes = new long[0];
      long vertices = 0;
      for (int t = 0; t < s.numTypes(); t++) {
        long[] starts = g.partitionStarts(t);
        if (sizes.length < starts.length - 1) {
          sizes = Arrays.copyOf(sizes, starts.length - 1);
        }
        for (int p = 0; p + 1 < starts.length; p++) {
          sizes[p] += starts[p + 1] - starts[p];
        }
        vertices += starts[starts.length - 1];
      }
      long largest = Arrays.stream(sizes).max().orElse(0);
      double imbalance = vertices == 0 ? 1 : (double) largest * sizes.length / vertices;
      return new TypedStoreCut(entries, cut, vertices, imbalance);
    }
  }

  /** The share of CSR entries cut. */
  double cutFraction() {
    return entries == 0 ? 0 : (double) cut / entries;
  }

  /** The partition of {@code starts} (its end last) holding type-local vertex {@code v}. */
  private static int partOf(long[] starts, long v) {
    int p = Arrays.binarySearch(starts, v);
    p = p >= 0 ? p : -p - 2;
    while (p + 2 < starts.length && starts[p + 1] <= v) {
      p++; // skip empty partitions sharing a start
    }
    return p;
  }
}
