package io.fanout.graph;

/**
 * How many pairs one held-out split of a link-prediction store holds ({@code pairs}: its positives
 * and its stored negatives) and how many of them are positives (label 1): what {@code sample --task
 * link --split val|test} plans its shards by, without the pairs themselves ({@link
 * HeldOutEdges#count}).
 */
public record HeldOutCount(long pairs, long positives) {

  /** The counts of pairs already in memory. */
  public static HeldOutCount of(HeldOutEdges h) {
    return new HeldOutCount(h.size(), h.positives());
  }
}
