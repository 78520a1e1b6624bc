package io.fanout.sample;

/**
 * The edges a typed link-prediction batch leaves out of its blocks: its positive pairs (in the
 * shifted id space of {@link LinkPairBuilder}), out of the link relation's blocks and out of its
 * reverses' (where each pair appears flipped). Other relations keep every edge. {@link
 * TypedBatchBuilder#addBlock} applies it to every block it adds, in both sampling modes.
 *
 * @param pairs the batch's positive pairs, sources as they are and destinations shifted by {@code
 *     link.dstOffset()}
 * @param link the link relation
 */
record TypedLinkExclusion(PairSet pairs, TypedLinkRelation link) {

  /**
   * The exclusion of a batch whose pairs are {@code pairs} (positions in the seed lists {@code
   * srcNodes} of type {@code S} and {@code dstNodes} of type {@code D}): its positives, as {@link
   * LinkPairBuilder#exclude()} held them when the batch was started.
   */
  static TypedLinkExclusion of(
      TypedLinkRelation link, LinkPairs pairs, int[] srcNodes, int[] dstNodes) {
    PairSet set = new PairSet();
    for (int i = 0; i < pairs.size(); i++) {
      if (pairs.label()[i] == 1) {
        set.add(srcNodes[pairs.src()[i]], dstNodes[pairs.dst()[i]] + link.dstOffset());
      }
    }
    return new TypedLinkExclusion(set, link);
  }

  /**
   * Drops from the block of relation {@code r} (rows {@code ptr}, sampled type-local ids {@code
   * ids}, destinations {@code dstNodes}) the batch's positive edges; returns the kept ids, {@code
   * ptr} rewritten in place ({@link PairSet#dropFrom}).
   */
  int[] dropFrom(int r, int[] ptr, int[] ids, int[] dstNodes) {
    int dstOffset = link.dstOffset();
    if (r == link.relation()) {
      return pairs.dropFrom(ptr, ids, i -> dstNodes[i] + dstOffset);
    }
    if (!link.reverse()[r]) {
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
