package io.fanout.graph;

import io.fanout.store.StoreLayout;

/**
 * The seeds of a partition for the feature layouts that follow seeds ({@link SeedGroupOrder},
 * {@link NeighborhoodOrder}): its training vertices, or all its vertices when it has none; and the
 * bit sets those layouts mark rows in.
 */
final class LayoutSeeds {
  private LayoutSeeds() {}

  /** Whether {@code [lo, hi)} holds a training id (then only training ids are seeds). */
  static boolean anyTrain(VertexTable splits, int lo, int hi) {
    boolean anyTrain = false;
    if (splits != null) {
      for (int v = lo; v < hi && !anyTrain; v++) {
        anyTrain = splits.split(v) == StoreLayout.SPLIT_TRAIN;
      }
    }
    return anyTrain;
  }

  /** A bit set over {@code size} rows. */
  static long[] bits(int size) {
    return new long[(size + 63) >>> 6];
  }

  static boolean test(long[] bits, int i) {
    return (bits[i >>> 6] & (1L << i)) != 0;
  }

  static void set(long[] bits, int i) {
    bits[i >>> 6] |= 1L << i;
  }
}
