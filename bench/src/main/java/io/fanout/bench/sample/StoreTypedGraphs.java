package io.fanout.bench.sample;

import io.fanout.graph.ArrayCsrGraph;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.graph.VertexTable;

/**
 * A typed store for {@code bench-sample --graph} (e.g. {@code generate --types} then {@code prepare
 * --graph-spec}): its relations copied into heap arrays, and the one-type graph of the same
 * vertices and edges with types and relations forgotten, so both samplers read the same edges from
 * the same kind of memory in one run.
 */
final class StoreTypedGraphs {
  private StoreTypedGraphs() {}

  /**
   * {@code g} with every relation's CSR, and the weights of its weighted relations, copied onto the
   * heap; labels and splits stay {@code g}'s.
   */
  static TypedGraph onHeap(TypedGraph g) {
    int relations = g.schema().numRelations();
    CsrGraph[] csr = new CsrGraph[relations];
    EdgeWeights[] weights = new EdgeWeights[relations];
    for (int r = 0; r < relations; r++) {
      csr[r] = copy(g.inNeighbors(r));
      EdgeWeights w = g.weights(r);
      if (w != null) {
        float[] a = new float[Math.toIntExact(csr[r].numEdges())];
        for (int i = 0; i < a.length; i++) {
          a[i] = w.weight(i);
        }
        weights[r] = p -> a[(int) p];
      }
    }
    return new TypedGraph() {
      @Override
      public EdgeWeights weights(int relation) {
        return weights[relation];
      }

      @Override
      public TypedSchema schema() {
        return g.schema();
      }

      @Override
      public CsrGraph inNeighbors(int relation) {
        return csr[relation];
      }

      @Override
      public VertexTable vertices(int type) {
        return g.vertices(type);
      }

      @Override
      public int[] labelSet(int type, int v) {
        return g.labelSet(type, v);
      }

      @Override
      public FeatureTable features(int type) {
        return null;
      }
    };
  }

  /** Whether a relation of {@code g} has weights. */
  static boolean weighted(TypedGraph g) {
    for (int r = 0; r < g.schema().numRelations(); r++) {
      if (g.weights(r) != null) {
        return true;
      }
    }
    return false;
  }

  private static ArrayCsrGraph copy(CsrGraph g) {
    int n = g.numVertices();
    long[] ptr = new long[n + 1];
    int[] idx = new int[Math.toIntExact(g.numEdges())];
    int q = 0;
    for (int v = 0; v < n; v++) {
      for (long p = g.rowStart(v); p < g.rowEnd(v); p++) {
        idx[q++] = g.neighbor(p);
      }
      ptr[v + 1] = q;
    }
    return new ArrayCsrGraph(ptr, idx);
  }

  /**
   * The one-type graph of {@code g}: global dense ids ({@link TypedSchema.VertexType#firstVertex}
   * plus the type-local id), vertex {@code v}'s row the in-neighbors of every relation into its
   * type, in relation order.
   */
  static ArrayCsrGraph merged(TypedGraph g) {
    TypedSchema s = g.schema();
    long edges = 0;
    for (int r = 0; r < s.numRelations(); r++) {
      edges += g.inNeighbors(r).numEdges();
    }
    if (s.numVertices() > Integer.MAX_VALUE - 8 || edges > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "the merged benchmark graph holds at most 2^31 vertices and edges");
    }
    long[] ptr = new long[(int) s.numVertices() + 1];
    int[] idx = new int[(int) edges];
    int q = 0;
    int v = 0;
    for (int t = 0; t < s.numTypes(); t++) {
      int[] into = s.relationsInto(t);
      for (int l = 0; l < s.type(t).count(); l++) {
        for (int r : into) {
          CsrGraph c = g.inNeighbors(r);
          int offset = (int) s.type(s.relation(r).srcType()).firstVertex();
          for (long p = c.rowStart(l); p < c.rowEnd(l); p++) {
            idx[q++] = offset + c.neighbor(p);
          }
        }
        ptr[++v] = q;
      }
    }
    return new ArrayCsrGraph(ptr, idx);
  }

  /** The labels of {@link #merged}: type {@code seedType}'s by global id, -1 elsewhere. */
  static VertexTable mergedVertices(TypedGraph g, int seedType) {
    TypedSchema s = g.schema();
    int first = (int) s.type(seedType).firstVertex();
    int n = (int) s.numVertices();
    VertexTable seeds = g.vertices(seedType);
    return VertexTables.of(
        n,
        v -> {
          int l = v - first;
          return l >= 0 && l < seeds.numVertices() ? seeds.label(l) : -1;
        },
        v -> {
          int l = v - first;
          return l >= 0 && l < seeds.numVertices() ? seeds.split(l) : 0;
        });
  }

  /** The seed type of a store: its first labelled type, else its first type. */
  static int seedType(TypedSchema s) {
    for (int t = 0; t < s.numTypes(); t++) {
      if (s.type(t).labelled()) {
        return t;
      }
    }
    return 0;
  }
}
