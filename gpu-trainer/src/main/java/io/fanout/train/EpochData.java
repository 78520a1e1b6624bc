package io.fanout.train;

/** The batches of each epoch. */
@FunctionalInterface
public interface EpochData {
  /** Opens epoch {@code epoch}'s batches (0-based); the caller closes the stream. */
  BatchStream open(int epoch);
}
