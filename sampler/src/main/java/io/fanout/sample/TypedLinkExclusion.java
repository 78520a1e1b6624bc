package io.fanout.sample;

/**
 * The edges a typed link-prediction batch leaves out of its blocks: its positive pairs ({@link
 * LinkPairBuilder#exclude()}, in the builder's shifted id space), out of the link relation's blocks
 * and out of its reverses' (where each pair appears flipped). Other relations keep every edge.
 *
 * @param pairs the batch's positive pairs, sources as they are and destinations shifted by {@code
 *     dstOffset}
 * @param relation the link relation
 * @param reverse per relation, whether it is a reverse of the link relation
 * @param srcType the link relation's source type
 * @param dstType its destination type
 * @param dstOffset 0 when the two types are one, else the source type's vertex count
 */
record TypedLinkExclusion(
    PairSet pairs, int relation, boolean[] reverse, int srcType, int dstType, int dstOffset) {

  /**
   * Drops from the block of relation {@code r} (rows {@code ptr}, sampled type-local ids {@code
   * ids}, destinations {@code dstNodes}) the batch's positive edges; returns the kept ids, {@code
   * ptr} rewritten in place ({@link PairSet#dropFrom}).
   */
  int[] dropFrom(int r, int[] ptr, int[] ids, int[] dstNodes) {
    if (r == relation) {
      return pairs.dropFrom(ptr, ids, i -> dstNodes[i] + dstOffset);
    }
    if (!reverse[r]) {
      return ids;
    }
    // a reverse's rows are the link relation's sources, its ids the link destinations
    shift(ids, ids.length, dstOffset);
    int[] kept = pairs.dropFrom(ptr, ids, i -> dstNodes[i]);
    shift(kept, kept.length, -dstOffset);
    return kept;
  }

  private static void shift(int[] ids, int n, int by) {
    if (by != 0) {
      for (int i = 0; i < n; i++) {
        ids[i] += by;
      }
    }
  }
}
