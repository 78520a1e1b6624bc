package io.fanout.sample;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.graph.VertexTable;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded random typed graphs: paper (labelled, split), author, term (no features); relations cites
 * (paper -> paper), writes (author -> paper), written_by (paper -> author), has_term (term ->
 * paper). Edges are distinct per relation, in-degrees skewed.
 */
public final class TypedTestGraphs {
  private TypedTestGraphs() {}

  public static ArrayTypedGraph acmLike(int papers, int authors, int terms, int edges, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int[] labels = new int[papers];
    byte[] splits = new byte[papers];
    for (int v = 0; v < papers; v++) {
      labels[v] = r.nextInt(4) - 1 < 0 ? -1 : r.nextInt(3);
      splits[v] = (byte) r.nextInt(4);
    }
    int[][] cites = edges(papers, papers, edges, r);
    int[][] writes = edges(authors, papers, edges / 2, r);
    int[][] hasTerm = edges(terms, papers, edges / 3, r);
    return ArrayTypedGraph.builder()
        .type("paper", papers, 2, new float[papers * 2], labels, splits)
        .type("author", authors, 2, new float[authors * 2], null, null)
        .type("term", terms, 0, null, null, null)
        .relation("cites", "paper", "paper", cites[0], cites[1])
        .relation("writes", "author", "paper", writes[0], writes[1])
        .relation("written_by", "paper", "author", writes[1], writes[0])
        .relation("has_term", "term", "paper", hasTerm[0], hasTerm[1])
        .build();
  }

  /** Distinct edges src -> dst, destinations skewed toward low ids. */
  static int[][] edges(int ns, int nd, int m, SplittableRandom r) {
    java.util.HashSet<Long> seen = new java.util.HashSet<>();
    List<int[]> out = new ArrayList<>();
    for (int e = 0; e < m; e++) {
      int d = (int) (nd * Math.pow(r.nextDouble(), 2.0));
      int s = r.nextInt(ns);
      if (seen.add((long) s << 32 | d)) {
        out.add(new int[] {s, d});
      }
    }
    int[] src = new int[out.size()];
    int[] dst = new int[out.size()];
    for (int i = 0; i < src.length; i++) {
      src[i] = out.get(i)[0];
      dst[i] = out.get(i)[1];
    }
    return new int[][] {src, dst};
  }

  /**
   * {@code g} with type {@code type} multi-label: vertex {@code v}'s label set is {@code {v % 3}}
   * plus {@code {(v + 1) % 3}} for odd {@code v}, empty when {@code v % 5 == 0}.
   */
  public static TypedGraph multiLabel(TypedGraph g, int type) {
    List<TypedSchema.VertexType> types = new ArrayList<>(g.schema().types());
    TypedSchema.VertexType t = types.get(type);
    types.set(
        type,
        new TypedSchema.VertexType(
            t.name(), t.firstVertex(), t.count(), t.featureDim(), t.featureEncoding(), 3, true));
    TypedSchema schema = new TypedSchema(types, g.schema().relations());
    return new TypedGraph() {
      @Override
      public TypedSchema schema() {
        return schema;
      }

      @Override
      public CsrGraph inNeighbors(int relation) {
        return g.inNeighbors(relation);
      }

      @Override
      public VertexTable vertices(int ty) {
        return g.vertices(ty);
      }

      @Override
      public int[] labelSet(int ty, int v) {
        if (ty != type) {
          return TypedGraph.super.labelSet(ty, v);
        }
        if (v % 5 == 0) {
          return new int[0];
        }
        int a = v % 3;
        int b = (v + 1) % 3;
        return v % 2 == 1 ? new int[] {Math.min(a, b), Math.max(a, b)} : new int[] {a};
      }

      @Override
      public FeatureTable features(int ty) {
        return g.features(ty);
      }
    };
  }
}
