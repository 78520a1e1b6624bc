package io.fanout.graph;

import io.fanout.store.StoreLayout;
import java.util.Arrays;

/**
 * The row positions of {@link io.fanout.store.FeatureLayoutKind#SEED_GROUPS}: inside each partition
 * {@code [starts[p], starts[p+1])}, its seeds (training vertices in dense-id order; all its
 * vertices when it has none) one after the other, each followed by the rows of its in-neighbors and
 * of theirs (two hops of the CSR, the direction a sampler draws, neighbors outside the partition
 * skipped) that no earlier seed placed, hop by hop; then the rows no seed reaches, in id order. A
 * batch draws each seed once an epoch, so the rows a seed samples lie in one run of the file,
 * whatever the epoch's order, and the rows training never reads lie apart, after them. Partitions
 * are computed in parallel, each alone, so the result does not depend on the number of threads.
 */
public final class SeedGroupOrder {
  /** Hops of in-neighbors a seed reaches. */
  public static final int HOPS = 2;

  private SeedGroupOrder() {}

  /**
   * The position of every id's row in this layout, as {@link SeedLayouts#positions} describes (same
   * parameters).
   */
  public static int[] positions(CsrGraph csr, VertexTable splits, long[] starts, int threads) {
    return SeedLayouts.positions(csr, splits, starts, threads, SeedGroupOrder::order);
  }

  /**
   * The positions, in {@code [lo, hi)}, of the rows of ids {@code lo .. hi-1} of one partition, as
   * {@link SeedLayouts.PartitionOrder} describes.
   */
  static void order(CsrGraph csr, VertexTable splits, int lo, int hi, int[] positions) {
    int size = hi - lo;
    boolean anyTrain = SeedLayouts.anyTrain(splits, lo, hi);
    int next = lo;
    int[] lastSeed = new int[size];
    long[] placed = SeedLayouts.bits(size);
    long[] expanded = SeedLayouts.bits(size);
    int[][] buf = {new int[16]};
    for (int s = lo; s < hi; s++) {
      if (anyTrain && splits.split(s) != StoreLayout.SPLIT_TRAIN) {
        continue;
      }
      int count = reachOf(csr, s, lo, hi, lastSeed, expanded, buf);
      int[] members = buf[0];
      for (int i = 0; i < count; i++) {
        int r = members[i] - lo;
        if (!SeedLayouts.test(placed, r)) {
          SeedLayouts.set(placed, r);
          positions[r] = next++;
        }
      }
    }
    for (int r = 0; r < size; r++) {
      if (!SeedLayouts.test(placed, r)) {
        positions[r] = next++;
      }
    }
  }

  /**
   * Lists in {@code buf[0]} (grown as needed) the rows seed {@code s} reaches: itself first, then
   * its in-neighbors, then theirs, each once, staying in {@code [lo, hi)}; returns how many. {@code
   * lastSeed} marks the rows already listed for this seed. A vertex whose in-neighbors an earlier
   * seed listed ({@code expanded}) is not expanded again at the last hop: they are all placed
   * already, so the order is the same and a vertex of many in-neighbors is walked about once, not
   * once per seed that reaches it.
   */
  private static int reachOf(
      CsrGraph csr, int s, int lo, int hi, int[] lastSeed, long[] expanded, int[][] buf) {
    int mark = s - lo + 1;
    int[] out = buf[0];
    lastSeed[s - lo] = mark;
    out[0] = s;
    int count = 1;
    int levelStart = 0;
    for (int hop = 0; hop < HOPS; hop++) {
      int levelEnd = count;
      for (int i = levelStart; i < levelEnd; i++) {
        int u = out[i];
        if (hop == HOPS - 1 && SeedLayouts.test(expanded, u - lo)) {
          continue; // an earlier seed listed its in-neighbors: every one of them is placed
        }
        SeedLayouts.set(expanded, u - lo);
        for (long e = csr.rowStart(u), end = csr.rowEnd(u); e < end; e++) {
          int w = csr.neighbor(e);
          if (w < lo || w >= hi || lastSeed[w - lo] == mark) {
            continue;
          }
          lastSeed[w - lo] = mark;
          if (count == out.length) {
            out = Arrays.copyOf(out, 2 * count);
            buf[0] = out;
          }
          out[count++] = w;
        }
      }
      levelStart = levelEnd;
    }
    return count;
  }
}
