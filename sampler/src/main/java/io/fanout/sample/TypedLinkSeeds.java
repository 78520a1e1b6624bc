package io.fanout.sample;

/**
 * Starts typed link-prediction batches, in both sampling modes: a batch of {@code B} positives (the
 * link relation's training edges {@code src[i] -> dst[i]}, type-local ids) gets {@code k} negatives
 * each from {@link LinkPairBuilder} (destinations of type {@code D}, in the shifted id space of
 * {@link TypedLinkRelation}), its seeds are the pairs' endpoints deduplicated in pair order and
 * split by type, and its positives leave the blocks of the link relation and its reverses ({@link
 * TypedBatchBuilder#startLink}).
 *
 * <p>Reused across batches by one thread; not thread-safe.
 */
public final class TypedLinkSeeds {
  private final TypedLinkRelation link;
  private final LinkPairBuilder pairs;
  private int[] shifted = new int[512];

  /**
   * @param negatives draws over the destination type's vertices; null for a starter of held-out
   *     batches only ({@link #startHeldOut})
   * @param seed the sampling seed (the one the blocks are sampled with)
   */
  public TypedLinkSeeds(
      TypedLinkRelation link, NegativeSampler negatives, int perPositive, long seed) {
    this.link = link;
    this.pairs = new LinkPairBuilder(negatives, perPositive, seed, link.dstOffset());
  }

  public TypedLinkRelation link() {
    return link;
  }

  /**
   * Starts {@code builder} (made for {@link #link()}) on batch {@code (epoch, batch)} of {@code
   * layers} hops whose positives are {@code src[i] -> dst[i]}, {@code i < count}.
   */
  public void start(
      TypedBatchBuilder builder,
      int epoch,
      int batch,
      int layers,
      int[] src,
      int[] dst,
      int count) {
    LinkPairs p = pairs.build(epoch, batch, src, shifted(dst, count), count);
    builder.startLink(epoch, batch, layers, pairs.nodes(), pairs.size(), p, pairs.exclude());
  }

  /**
   * Starts {@code builder} on a batch of held-out pairs {@code src[i] -> dst[i]} labelled {@code
   * label[i]} ({@link LinkPairBuilder#fixed}: no negatives drawn), {@code i < count}; its positives
   * leave the blocks as a training batch's do.
   */
  public void startHeldOut(
      TypedBatchBuilder builder,
      int epoch,
      int batch,
      int layers,
      int[] src,
      int[] dst,
      byte[] label,
      int count) {
    LinkPairs p = pairs.fixed(src, shifted(dst, count), label, count);
    builder.startLink(epoch, batch, layers, pairs.nodes(), pairs.size(), p, pairs.exclude());
  }

  /** {@code dst[0..count)} shifted into the destination type's range of the batch's node ids. */
  private int[] shifted(int[] dst, int count) {
    if (shifted.length < count) {
      shifted = new int[count];
    }
    for (int i = 0; i < count; i++) {
      shifted[i] = link.dstOffset() + dst[i];
    }
    return shifted;
  }
}
