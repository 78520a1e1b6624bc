package io.fanout.graph;

import io.fanout.store.StoreLayout;

/**
 * What the feature layouts that follow seeds ({@link SeedGroupOrder}, {@link NeighborhoodOrder})
 * share: partitions ordered in parallel, each alone; a partition's seeds, its training vertices or
 * all its vertices when it has none; and the bit sets the layouts mark rows in.
 */
final class SeedLayouts {
  /** One layout's order of the rows of one partition. */
  @FunctionalInterface
  interface PartitionOrder {
    /**
     * Fills {@code positions[0 .. hi-lo)} with the positions of the rows of ids {@code lo .. hi-1},
     * a permutation of {@code [lo, hi)}, reading {@code csr} and {@code splits} only at those ids
     * (and the CSR entries of their rows): a partition is ordered from its own files.
     */
    void order(CsrGraph csr, VertexTable splits, int lo, int hi, int[] positions);
  }

  private SeedLayouts() {}

  /**
   * The position of every id's row ({@code positions[v]}, a permutation keeping each id in its
   * partition), each partition ordered by {@code order} on up to {@code threads} threads.
   *
   * @param starts the first id of each partition, then the number of ids
   * @param splits the split of every id (training ids are the seeds); null: every id is a seed
   */
  static int[] positions(
      CsrGraph csr, VertexTable splits, long[] starts, int threads, PartitionOrder order) {
    int[] positions = new int[csr.numVertices()];
    PartitionTasks.run(
        starts,
        threads,
        "ordering feature rows",
        (p, lo, hi) -> {
          int[] part = partition(csr, splits, lo, hi, order);
          System.arraycopy(part, 0, positions, lo, part.length);
        });
    return positions;
  }

  /**
   * The positions of the rows of ids {@code lo .. hi-1} (one partition), by {@code order}: {@code
   * positions[v - lo]}, in {@code [lo, hi)}. Memory in proportion to the partition, not the graph.
   */
  static int[] partition(CsrGraph csr, VertexTable splits, int lo, int hi, PartitionOrder order) {
    int[] positions = new int[hi - lo];
    order.order(csr, splits, lo, hi, positions);
    return positions;
  }

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
