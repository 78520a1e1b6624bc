package io.fanout.graph;

import java.util.function.IntFunction;

/**
 * One store partition of one vertex type of a typed graph, for tasks that serve only the vertices
 * it owns ({@code sample --mode partitioned}): their labels, splits and label sets, and their
 * in-neighbor rows over every relation into the type. Ids are type-local; asking for a vertex the
 * partition does not own, or a relation into another type, is an error. {@link
 * TypedGraphStore#openPartition} maps only the partition's own files; {@link #view} serves the same
 * reads from a whole {@link TypedGraph}. Thread-safe for reads.
 */
public final class TypedStorePartition {
  private final int type;
  private final long first;
  private final long end;
  private final int shift;
  private final VertexTable vertices;
  private final CsrGraph[] inNeighbors;
  private final EdgeWeights[] weights;
  private final IntFunction<int[]> labelSets;

  /**
   * @param shift what to subtract from a type-local id to index {@code vertices} and the rows of
   *     {@code inNeighbors}
   * @param inNeighbors per relation, its rows of the owned vertices; null for relations into other
   *     types
   * @param weights per relation, the weights of {@code inNeighbors}' entries by its positions; null
   *     for unweighted relations and relations into other types
   * @param labelSets the label set of an owned vertex (by type-local id), or null: not multi-label
   */
  TypedStorePartition(
      int type,
      long first,
      long end,
      int shift,
      VertexTable vertices,
      CsrGraph[] inNeighbors,
      EdgeWeights[] weights,
      IntFunction<int[]> labelSets) {
    this.type = type;
    this.first = first;
    this.end = end;
    this.shift = shift;
    this.vertices = vertices;
    this.inNeighbors = inNeighbors;
    this.weights = weights;
    this.labelSets = labelSets;
  }

  /** Vertices {@code [first, end)} of {@code type} of {@code g}, read through {@code g}. */
  public static TypedStorePartition view(TypedGraph g, int type, long first, long end) {
    TypedSchema s = g.schema();
    CsrGraph[] rel = new CsrGraph[s.numRelations()];
    EdgeWeights[] w = new EdgeWeights[s.numRelations()];
    for (int r = 0; r < rel.length; r++) {
      if (s.relation(r).dstType() == type) {
        rel[r] = g.inNeighbors(r);
        w[r] = g.weights(r);
      }
    }
    IntFunction<int[]> sets = s.type(type).multiLabel() ? v -> g.labelSet(type, v) : null;
    return new TypedStorePartition(type, first, end, 0, g.vertices(type), rel, w, sets);
  }

  public int type() {
    return type;
  }

  /** The first type-local id the partition owns. */
  public long firstVertex() {
    return first;
  }

  /** One past the last type-local id the partition owns. */
  public long endVertex() {
    return end;
  }

  private int row(int v) {
    if (v < first || v >= end) {
      throw new IllegalArgumentException(
          "vertex "
              + v
              + " of type "
              + type
              + " is not owned by the partition of vertices "
              + first
              + ".."
              + (end - 1));
    }
    return v - shift;
  }

  public int label(int v) {
    return vertices.label(row(v));
  }

  public byte split(int v) {
    return vertices.split(row(v));
  }

  /** The classes of owned vertex {@code v} of a multi-label type, ascending. */
  public int[] labelSet(int v) {
    if (labelSets == null) {
      throw new UnsupportedOperationException("type " + type + " is not multi-label");
    }
    row(v);
    return labelSets.apply(v);
  }

  /**
   * The weights of the entries of {@link #inNeighbors}{@code (relation)}, by its positions, or null
   * when the relation has no weights.
   */
  public EdgeWeights weights(int relation) {
    inNeighbors(relation); // refuses a relation into another type
    return weights[relation];
  }

  /**
   * The in-neighbor rows of the owned vertices over {@code relation} (into this type), by
   * type-local id. Positions are the partition's own: only {@code rowStart}/{@code rowEnd} of owned
   * vertices and positions inside their rows are valid.
   */
  public CsrGraph inNeighbors(int relation) {
    CsrGraph g = relation >= 0 && relation < inNeighbors.length ? inNeighbors[relation] : null;
    if (g == null) {
      throw new IllegalArgumentException(
          "relation " + relation + " does not end at type " + type + " of this partition");
    }
    return new CsrGraph() {
      @Override
      public int numVertices() {
        return (int) end;
      }

      @Override
      public long numEdges() {
        return g.numEdges();
      }

      @Override
      public long rowStart(int v) {
        return g.rowStart(row(v));
      }

      @Override
      public long rowEnd(int v) {
        return g.rowEnd(row(v));
      }

      @Override
      public int neighbor(long position) {
        return g.neighbor(position);
      }
    };
  }
}
