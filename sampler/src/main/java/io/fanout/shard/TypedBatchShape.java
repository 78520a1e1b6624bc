package io.fanout.shard;

import io.fanout.graph.TypedSchema;

/**
 * What a reader must know to decode a typed shard row: the number of vertex types, each relation's
 * source and destination type (in relation order), and the number of hops. Typed shards record it
 * in their manifest ({@link ShardManifest.Typed}); link-prediction shards also their link relation
 * ({@code -1} for node classification), whose source type may hold seeds besides the seed type.
 */
public record TypedBatchShape(
    int numTypes, int[] relationSrc, int[] relationDst, int layers, int linkRelation) {
  public TypedBatchShape {
    if (numTypes < 1
        || layers < 0
        || relationSrc.length != relationDst.length
        || linkRelation < -1
        || linkRelation >= relationSrc.length) {
      throw new IllegalArgumentException("bad typed batch shape");
    }
    for (int r = 0; r < relationSrc.length; r++) {
      if (relationSrc[r] < 0
          || relationSrc[r] >= numTypes
          || relationDst[r] < 0
          || relationDst[r] >= numTypes) {
        throw new IllegalArgumentException("relation " + r + " names a type out of range");
      }
    }
    relationSrc = relationSrc.clone();
    relationDst = relationDst.clone();
  }

  /** The shape of node-classification batches (no link relation). */
  public TypedBatchShape(int numTypes, int[] relationSrc, int[] relationDst, int layers) {
    this(numTypes, relationSrc, relationDst, layers, -1);
  }

  /** This shape for link-prediction batches of relation {@code r} ({@code -1}: none). */
  public TypedBatchShape withLinkRelation(int r) {
    return new TypedBatchShape(numTypes, relationSrc, relationDst, layers, r);
  }

  /** The shape of batches of {@code layers} hops over {@code schema}. */
  public static TypedBatchShape of(TypedSchema schema, int layers) {
    int[] src = new int[schema.numRelations()];
    int[] dst = new int[src.length];
    for (int r = 0; r < src.length; r++) {
      src[r] = schema.relation(r).srcType();
      dst[r] = schema.relation(r).dstType();
    }
    return new TypedBatchShape(schema.numTypes(), src, dst, layers);
  }

  public int numRelations() {
    return relationSrc.length;
  }
}
