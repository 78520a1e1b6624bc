package io.fanout.sample;

/**
 * The scored pairs of a link-prediction batch: pair {@code i} joins the batch's seed nodes {@code
 * src[i]} and {@code dst[i]} (local indices, below {@link MiniBatch#numSeeds()}); {@code label[i]}
 * is 1 for a training edge, 0 for a negative. Positives come first, then each positive's negatives.
 *
 * <p>Arrays are owned by the pairs; callers must not mutate them.
 */
public record LinkPairs(int[] src, int[] dst, int[] label) implements java.io.Serializable {
  public LinkPairs {
    if (src.length != dst.length || src.length != label.length) {
      throw new IllegalArgumentException("pair arrays of different lengths");
    }
  }

  public int size() {
    return src.length;
  }
}
