package io.fanout.graph;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The types and relations of a typed (heterogeneous) graph store.
 *
 * <p>Vertex type {@code t} owns the global dense ids {@code [firstVertex, firstVertex + count)};
 * the types' ranges are contiguous and in list order, starting at 0. Everything that is indexed per
 * type (relation CSR rows and neighbors, feature rows, labels, the nodes of a {@code
 * TypedMiniBatch}) uses <em>type-local</em> ids {@code 0 .. count-1}: global id minus {@code
 * firstVertex}.
 *
 * <p>Relation {@code r} connects edges {@code u -> v} with {@code u} of type {@code srcType} and
 * {@code v} of type {@code dstType}; its CSR lists, for each destination, its in-neighbors.
 *
 * @param types vertex types in dense-id order
 * @param relations relations in store order (the relation index used by batches and models)
 */
public record TypedSchema(List<VertexType> types, List<Relation> relations) {

  /**
   * One vertex type.
   *
   * @param featureDim 0 when the type has no features
   * @param featureEncoding the store encoding name of its rows ({@code f32}, {@code f16}, ...), ""
   *     when it has no features
   * @param classes the number of classes of a labelled type, else 0
   * @param multiLabel whether labels are sets ({@code labels} column) rather than one class
   */
  public record VertexType(
      String name,
      long firstVertex,
      long count,
      int featureDim,
      String featureEncoding,
      int classes,
      boolean multiLabel) {
    public boolean labelled() {
      return classes > 0;
    }

    public boolean hasFeatures() {
      return featureDim > 0;
    }
  }

  /** One relation: edges from {@code srcType} vertices into {@code dstType} vertices. */
  public record Relation(String name, int srcType, int dstType, long edges) {}

  public TypedSchema {
    types = List.copyOf(types);
    relations = List.copyOf(relations);
    if (types.isEmpty()) {
      throw new IllegalArgumentException("a typed graph needs at least one vertex type");
    }
    Map<String, Integer> seen = new HashMap<>();
    long next = 0;
    for (int t = 0; t < types.size(); t++) {
      VertexType vt = types.get(t);
      if (seen.put(vt.name(), t) != null) {
        throw new IllegalArgumentException("vertex type '" + vt.name() + "' appears twice");
      }
      if (vt.firstVertex() != next || vt.count() < 0) {
        throw new IllegalArgumentException(
            "vertex type '" + vt.name() + "' does not start where the previous type ends");
      }
      next += vt.count();
    }
    if (next > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "a typed graph holds at most 2^31-1 vertices, got " + next);
    }
    Map<String, Integer> rels = new HashMap<>();
    for (Relation r : relations) {
      if (rels.put(r.name(), 0) != null) {
        throw new IllegalArgumentException("relation '" + r.name() + "' appears twice");
      }
      if (r.srcType() < 0
          || r.srcType() >= types.size()
          || r.dstType() < 0
          || r.dstType() >= types.size()) {
        throw new IllegalArgumentException("relation '" + r.name() + "' names an unknown type");
      }
    }
  }

  public int numTypes() {
    return types.size();
  }

  public int numRelations() {
    return relations.size();
  }

  public VertexType type(int t) {
    return types.get(t);
  }

  public Relation relation(int r) {
    return relations.get(r);
  }

  /** The index of the type named {@code name}, or -1. */
  public int typeIndex(String name) {
    for (int t = 0; t < types.size(); t++) {
      if (types.get(t).name().equals(name)) {
        return t;
      }
    }
    return -1;
  }

  /** The index of the relation named {@code name}, or -1. */
  public int relationIndex(String name) {
    for (int r = 0; r < relations.size(); r++) {
      if (relations.get(r).name().equals(name)) {
        return r;
      }
    }
    return -1;
  }

  /** The type owning global dense id {@code v}. */
  public int typeOf(long v) {
    int lo = 0;
    int hi = types.size() - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (types.get(mid).firstVertex() <= v) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** The relations whose destination type is {@code dstType}, in relation order. */
  public int[] relationsInto(int dstType) {
    List<Integer> out = new ArrayList<>();
    for (int r = 0; r < relations.size(); r++) {
      if (relations.get(r).dstType() == dstType) {
        out.add(r);
      }
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /** The total number of vertices over all types. */
  public long numVertices() {
    VertexType last = types.get(types.size() - 1);
    return last.firstVertex() + last.count();
  }
}
