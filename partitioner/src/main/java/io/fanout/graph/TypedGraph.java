package io.fanout.graph;

/**
 * A typed (heterogeneous) graph, read by the typed sampler and the typed trainer. All ids are
 * type-local (see {@link TypedSchema}). Implementations are thread-safe for reads.
 */
public interface TypedGraph extends AutoCloseable {
  TypedSchema schema();

  /**
   * The in-neighbors of relation {@code r}: rows are the type-local ids of its destination type
   * ({@code numVertices()} is that type's count), neighbors are type-local ids of its source type,
   * each row sorted ascending.
   */
  CsrGraph inNeighbors(int relation);

  /**
   * The weight of every entry of {@link #inNeighbors}{@code (relation)}, by its positions, or null
   * when the relation has no weights ({@code sample --weighted} draws its in-neighbors uniformly).
   */
  default EdgeWeights weights(int relation) {
    return null;
  }

  /**
   * Labels and splits of type {@code t}'s vertices by type-local id; for a type without labels
   * every label is -1 and every split {@code SPLIT_NONE}.
   */
  VertexTable vertices(int type);

  /**
   * The label sets of a multi-label type: the classes of vertex {@code v} (empty when unlabelled),
   * ascending. Only for types whose {@link TypedSchema.VertexType#multiLabel()}.
   */
  default int[] labelSet(int type, int v) {
    throw new UnsupportedOperationException(
        "type '" + schema().type(type).name() + "' is not multi-label");
  }

  /** Feature rows of type {@code t} by type-local id, or null for a type without features. */
  FeatureTable features(int type);

  /**
   * The CRC32C of type {@code t}'s quantization parameters ({@code
   * types/<type>/features/params.qnt} of an {@code int8}, {@code int4} or {@code pq} type) as the
   * store's manifest lists it; null for a type without such a file or a graph that is not a store.
   * Shards that inline a type's encoded rows record it, and their readers decode them only with the
   * parameters of the same CRC32C.
   */
  default String featureParamsCrc32c(int type) {
    return null;
  }

  /**
   * How the graph splits type {@code t}'s type-local ids into store partitions: partition {@code p}
   * holds {@code [starts[p], starts[p + 1])}, the type's count last. The partitioned mode of {@code
   * sample} gives each its own task. Default: one partition holding the whole type.
   */
  default long[] partitionStarts(int type) {
    return new long[] {0, vertices(type).numVertices()};
  }

  /**
   * A store prepared for link prediction ({@code prepare --link-relation R}): {@code R}, then the
   * reverses of {@code R} whose CSR also lost the held-out edges; empty for any other graph.
   */
  default java.util.List<String> linkRelations() {
    return java.util.List.of();
  }

  /**
   * The held-out pairs of split {@code split} ({@code val} or {@code test}) of the link relation,
   * the first of {@link #linkRelations()}: its positives and stored negatives in file order; null
   * when the graph keeps none (any graph but a store prepared for link prediction).
   */
  default HeldOutEdges heldOutEdges(String split) {
    return null;
  }

  /**
   * How many pairs {@link #heldOutEdges}{@code (split)} holds and how many are positives, or null
   * when the graph keeps none. Default: counted from {@link #heldOutEdges}; a store answers from
   * its manifest without reading the pairs ({@link HeldOutEdges#count(TypedGraphStore, String)}).
   */
  default HeldOutCount heldOutCount(String split) {
    HeldOutEdges h = heldOutEdges(split);
    return h == null ? null : HeldOutCount.of(h);
  }

  /**
   * Whether relation {@code relation} holds each of its edges both ways round, self-loops once
   * ({@code prepare --undirected} on a relation within one type); false for any other.
   */
  default boolean symmetric(int relation) {
    return false;
  }

  @Override
  default void close() {}
}
