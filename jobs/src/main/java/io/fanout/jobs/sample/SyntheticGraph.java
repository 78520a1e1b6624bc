package io.fanout.jobs.sample;

import io.fanout.graph.ArrayCsrGraph;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.VertexTable;
import io.fanout.sample.SampleHash;
import io.fanout.store.CsrFileWriter;
import io.fanout.store.NodesFileWriter;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.store.StoreOutput;
import io.fanout.store.WeightFileWriter;
import java.util.Arrays;

/**
 * An in-memory power-law graph for benchmarks: in-degrees follow a Zipf-like law with exponent
 * about 2 (scaled to the requested edge count), in-neighbors are uniform. Deterministic in the
 * seed.
 */
final class SyntheticGraph {
  private SyntheticGraph() {}

  static ArrayCsrGraph generate(int vertices, long edges, long seed) {
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
      idx[e] = (int) Long.remainderUnsigned(SampleHash.mix(seed * 31 + e), vertices);
    }
    for (int v = 0; v < vertices; v++) {
      Arrays.sort(idx, (int) ptr[v], (int) ptr[v + 1]);
    }
    return new ArrayCsrGraph(ptr, idx);
  }

  /**
   * Writes {@code g} (no features) as a graph store of {@code partitions} equal vertex ranges with
   * the store's own writers and commit protocol, so benchmarks can sample the memory-mapped path.
   * With {@code weights} (by CSR position; null = none) the store is weighted.
   */
  static void writeStore(
      CsrGraph g, VertexTable vt, float[] weights, java.nio.file.Path store, int partitions) {
    io.fanout.store.OutputCommit.Run run = StoreOutput.COMMIT.begin(store);
    java.nio.file.Path staging = run.dir();
    StoreManifest m = new StoreManifest();
    int n = g.numVertices();
    long first = 0;
    int classes = 0;
    for (int p = 0; p < partitions; p++) {
      long end = (long) n * (p + 1) / partitions;
      long count = end - first;
      long edges = 0;
      try (CsrFileWriter csr =
              new CsrFileWriter(staging.resolve(StoreLayout.csrFile(p)), p, first, count);
          NodesFileWriter nodes =
              new NodesFileWriter(staging.resolve(StoreLayout.nodesFile(p)), p, first, count);
          WeightFileWriter wgt =
              weights == null
                  ? null
                  : new WeightFileWriter(
                      staging.resolve(StoreLayout.weightsFile(p)), p, first, count)) {
        for (long v = first; v < end; v++) {
          for (long q = g.rowStart((int) v); q < g.rowEnd((int) v); q++) {
            csr.addNeighbor(g.neighbor(q));
            if (wgt != null) {
              wgt.add(weights[(int) q]);
            }
            edges++;
          }
          csr.endRow();
          nodes.write(vt.label((int) v), vt.split((int) v));
          classes = Math.max(classes, vt.label((int) v) + 1);
        }
        csr.finish();
        nodes.finish();
        if (wgt != null) {
          wgt.finish();
        }
      }
      m.partitionTable.add(new StoreManifest.Partition(p, first, count, edges));
      first = end;
    }
    m.vertices = n;
    m.edges = g.numEdges();
    m.partitions = partitions;
    m.weighted = weights != null;
    m.classes = classes;
    m.idType = "long";
    m.inputFingerprint = "bench-sample synthetic graph";
    m.splitCounts.put("train", (long) n);
    m.files = StoreOutput.files(staging);
    StoreOutput.COMMIT.publish(run, m, true);
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
    return new VertexTable() {
      @Override
      public int numVertices() {
        return n;
      }

      @Override
      public int label(int v) {
        return v % 10;
      }

      @Override
      public byte split(int v) {
        return 1;
      }
    };
  }
}
