package io.fanout.graph;

import io.fanout.store.StoreLayout;

/**
 * The row positions of {@link io.fanout.store.FeatureLayoutKind#NEIGHBORHOOD}: inside each
 * partition {@code [starts[p], starts[p+1])}, its seeds (training vertices, in dense-id order; all
 * its vertices when it has none) one after the other, each followed by the not yet placed rows of
 * its in-neighbors and of theirs (two hops of the CSR, the direction a sampler draws), neighbors
 * outside the partition skipped; then the rows no seed reached, in id order. A vertex's
 * in-neighbors are expanded once, the first time a seed reaches it within one hop. Each seed's rows
 * form a group; then every row moves to the group most of its in-neighbors are in (one round, from
 * the groups the seeds left), so a row a later seed reached first still lies with the rows it is
 * sampled with, and rows are ordered by group. Partitions are computed in parallel, each alone, so
 * the result does not depend on the number of threads.
 */
public final class NeighborhoodOrder {
  /** Hops of in-neighbors placed after each seed. */
  public static final int HOPS = 2;

  private NeighborhoodOrder() {}

  /**
   * The position of every id's row in this layout, as {@link SeedLayouts#positions} describes (same
   * parameters).
   */
  public static int[] positions(CsrGraph csr, VertexTable splits, long[] starts, int threads) {
    return SeedLayouts.positions(csr, splits, starts, threads, NeighborhoodOrder::order);
  }

  /**
   * The positions, in {@code [lo, hi)}, of the rows of ids {@code lo .. hi-1} of one partition, as
   * {@link SeedLayouts.PartitionOrder} describes.
   */
  static void order(CsrGraph csr, VertexTable splits, int lo, int hi, int[] positions) {
    int size = hi - lo;
    long[] placed = SeedLayouts.bits(size);
    long[] expanded = SeedLayouts.bits(size);
    boolean anyTrain = SeedLayouts.anyTrain(splits, lo, hi);
    int next = lo;
    int[] group = new int[size];
    int groups = 0;
    int[] level = new int[16];
    int[] nextLevel = new int[16];
    for (int s = lo; s < hi; s++) {
      if (anyTrain && splits.split(s) != StoreLayout.SPLIT_TRAIN) {
        continue;
      }
      int g = groups++;
      if (!SeedLayouts.test(placed, s - lo)) {
        SeedLayouts.set(placed, s - lo);
        group[s - lo] = g;
        positions[s - lo] = next++;
      }
      level[0] = s;
      int count = 1;
      for (int hop = 0; hop < HOPS; hop++) {
        int nextCount = 0;
        for (int i = 0; i < count; i++) {
          int u = level[i];
          if (SeedLayouts.test(expanded, u - lo)) {
            continue;
          }
          SeedLayouts.set(expanded, u - lo);
          for (long e = csr.rowStart(u), end = csr.rowEnd(u); e < end; e++) {
            int w = csr.neighbor(e);
            if (w < lo || w >= hi) {
              continue;
            }
            if (!SeedLayouts.test(placed, w - lo)) {
              SeedLayouts.set(placed, w - lo);
              group[w - lo] = g;
              positions[w - lo] = next++;
            }
            if (hop + 1 < HOPS) {
              if (nextCount == nextLevel.length) {
                nextLevel = java.util.Arrays.copyOf(nextLevel, nextCount * 2);
              }
              nextLevel[nextCount++] = w;
            }
          }
        }
        int[] t = level;
        level = nextLevel;
        nextLevel = t;
        count = nextCount;
      }
    }
    for (int v = lo; v < hi; v++) {
      if (!SeedLayouts.test(placed, v - lo)) {
        group[v - lo] = groups++;
        positions[v - lo] = next++;
      }
    }
    regroup(csr, lo, hi, group, groups, positions);
  }

  /**
   * Moves each row to the group most of its in-neighbors in the partition belong to (its own group
   * counting one more; ties to the smaller group), all rows deciding from the groups as the seeds
   * left them; then orders the rows by group, and inside a group as they were placed. A row that a
   * later seed of its community placed away from the rest, or that no seed reached, so joins the
   * rows it is sampled with.
   */
  private static void regroup(
      CsrGraph csr, int lo, int hi, int[] group, int groups, int[] positions) {
    int size = hi - lo;
    int[] moved = new int[size];
    int[] scratch = new int[16];
    for (int v = lo; v < hi; v++) {
      int n = 0;
      for (long e = csr.rowStart(v), end = csr.rowEnd(v); e < end; e++) {
        int w = csr.neighbor(e);
        if (w >= lo && w < hi && w != v) {
          if (n == scratch.length) {
            scratch = java.util.Arrays.copyOf(scratch, 2 * n);
          }
          scratch[n++] = group[w - lo];
        }
      }
      java.util.Arrays.sort(scratch, 0, n);
      moved[v - lo] = joined(scratch, 0, n, group[v - lo]);
    }
    int[] placed = new int[size];
    for (int i = 0; i < size; i++) {
      placed[i] = positions[i] - lo;
    }
    int[] local = byGroup(moved, groups, placed);
    for (int i = 0; i < size; i++) {
      positions[i] = lo + local[i];
    }
  }

  /**
   * The group a row joins: of {@code sorted[from .. to)}, its neighbors' groups in ascending order,
   * the group holding most of them, its own group {@code own} counting one more; ties to the
   * smaller group. Shared with the typed layout ({@link TypedNeighborhoodOrder}).
   */
  static int joined(int[] sorted, int from, int to, int own) {
    int best = own;
    int bestScore = 1;
    for (int i = from; i < to; ) {
      int j = i;
      while (j < to && sorted[j] == sorted[i]) {
        j++;
      }
      int score = (j - i) + (sorted[i] == own ? 1 : 0);
      if (score > bestScore || (score == bestScore && sorted[i] < best)) {
        best = sorted[i];
        bestScore = score;
      }
      i = j;
    }
    return best;
  }

  /**
   * The positions of rows ordered by group ({@code moved[i]}, in {@code [0, groups)}), inside a
   * group in placement order ({@code placed[i]}, a permutation of {@code [0, n)}): a counting sort.
   */
  static int[] byGroup(int[] moved, int groups, int[] placed) {
    int size = moved.length;
    int[] start = new int[groups + 1];
    for (int i = 0; i < size; i++) {
      start[moved[i] + 1]++;
    }
    for (int g = 0; g < groups; g++) {
      start[g + 1] += start[g];
    }
    int[] rowAt = new int[size];
    for (int i = 0; i < size; i++) {
      rowAt[placed[i]] = i;
    }
    int[] positions = new int[size];
    for (int p = 0; p < size; p++) {
      int i = rowAt[p];
      positions[i] = start[moved[i]]++;
    }
    return positions;
  }
}
