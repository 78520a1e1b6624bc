package io.fanout.sample;

import io.fanout.graph.TypedSchema;
import java.io.Serializable;

/**
 * The link relation {@code R = S -> D} of typed link-prediction batches, as their assembly needs
 * it: which relations leave out the batch's positives ({@code R} and its reverses), the two
 * endpoint types, and the shift that puts type {@code D}'s ids past type {@code S}'s in the one id
 * space of {@link LinkPairBuilder} and {@link PairSet}. Shipped to the tasks of the partitioned
 * mode.
 *
 * @param relation the link relation's index in the schema
 * @param reverse per relation, whether it is a reverse of the link relation
 * @param srcType the link relation's source type {@code S}
 * @param dstType its destination type {@code D} (the batches' seed type)
 * @param dstOffset 0 when {@code S = D}, else {@code S}'s vertex count
 */
public record TypedLinkRelation(
    int relation, boolean[] reverse, int srcType, int dstType, int dstOffset)
    implements Serializable {

  /** Relation {@code relation} of {@code schema}, with reverses {@code reverses}. */
  public static TypedLinkRelation of(TypedSchema schema, int relation, int[] reverses) {
    TypedSchema.Relation rel = schema.relation(relation);
    boolean[] reverse = new boolean[schema.numRelations()];
    for (int r : reverses) {
      reverse[r] = true;
    }
    int s = rel.srcType();
    int d = rel.dstType();
    long shift = s == d ? 0 : schema.type(s).count();
    if (shift + schema.type(d).count() > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "link relation '"
              + rel.name()
              + "': its two types have more than 2^31 vertices together");
    }
    return new TypedLinkRelation(relation, reverse, s, d, (int) shift);
  }

  /** The type of a pair endpoint {@code v} of the shifted id space. */
  int typeOf(int v) {
    return srcType == dstType || v < dstOffset ? srcType : dstType;
  }
}
