package io.fanout.tensor;

/**
 * The edges an attention aggregation ({@link Backend#attentionAggregate}) runs over: a CSR block of
 * {@code rows} destination rows, whose row {@code i} has the edges {@code q} in {@code
 * [indptr[indptrOff + i], indptr[indptrOff + i + 1])}, each into source row {@code
 * indices[indicesOff + q]}, of relation {@code relations[relationsOff + q]} when {@code relations}
 * is not null ({@code relationCount} relations, ids {@code 0 .. relationCount-1}).
 *
 * <p>With {@code selfLoops}, every row {@code i} also has an edge from source row {@code i} (a
 * block's destinations are the first rows of its sources), ordered before the row's listed edges
 * and of relation {@code selfRelation} (ignored without relations).
 *
 * <p>Edge slots: the per-edge values of an aggregation (its attention weights, {@code slots() x
 * heads}) are laid out row by row in edge order, the self loop first; the listed edge {@code q} of
 * row {@code i} is slot {@code q - indptr[indptrOff] + (selfLoops ? i + 1 : 0)}, the self loop of
 * row {@code i} slot {@code indptr[indptrOff + i] - indptr[indptrOff] + i}.
 *
 * @param edges the number of listed edges, {@code indptr[indptrOff + rows] - indptr[indptrOff]}:
 *     the caller knows it from the host copy of the block, and a device backend need not read it
 *     back
 */
public record AttentionEdges(
    IntTensor indptr,
    int indptrOff,
    IntTensor indices,
    int indicesOff,
    IntTensor relations,
    int relationsOff,
    int relationCount,
    int rows,
    int edges,
    boolean selfLoops,
    int selfRelation) {

  /** Edges without relations. */
  public static AttentionEdges of(
      IntTensor indptr, IntTensor indices, int rows, int edges, boolean selfLoops) {
    return new AttentionEdges(indptr, 0, indices, 0, null, 0, 0, rows, edges, selfLoops, 0);
  }

  /** Edges each of a relation in {@code relations} (aligned with {@code indices}). */
  public static AttentionEdges withRelations(
      IntTensor indptr,
      IntTensor indices,
      IntTensor relations,
      int relationCount,
      int rows,
      int edges) {
    return new AttentionEdges(
        indptr, 0, indices, 0, relations, 0, relationCount, rows, edges, false, 0);
  }

  /** The edge slots: listed edges, plus one self loop per row with {@code selfLoops}. */
  public int slots() {
    return edges + (selfLoops ? rows : 0);
  }

  /** The same edges with a self loop of relation {@code relation} in every row. */
  public AttentionEdges withSelfLoops(int relation) {
    return new AttentionEdges(
        indptr,
        indptrOff,
        indices,
        indicesOff,
        relations,
        relationsOff,
        relationCount,
        rows,
        edges,
        true,
        relation);
  }
}
