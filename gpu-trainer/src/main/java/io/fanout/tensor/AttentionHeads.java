package io.fanout.tensor;

/**
 * The settings of one edge attention ({@link Backend#attentionAggregate}): {@code heads} heads of
 * {@code headDim} columns each, the negative {@code slope} of the LeakyReLU on the raw scores, and
 * the attention {@code dropout} (none when {@code <= 0}) drawn from the counter-based stream of
 * {@code key}. The backward takes the settings its forward took.
 */
public record AttentionHeads(int heads, int headDim, float slope, float dropout, long key) {
  /** The factor of a weight that dropout keeps: {@code 1 / (1 - dropout)}. */
  public float keptScale() {
    return 1f / (1f - dropout);
  }

  /** The columns of a row of all heads: {@code heads * headDim}. */
  public long width() {
    return (long) heads * headDim;
  }
}
