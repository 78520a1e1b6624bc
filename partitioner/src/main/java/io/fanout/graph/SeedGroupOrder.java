package io.fanout.graph;

import io.fanout.store.StoreLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The row positions of {@link io.fanout.store.FeatureLayoutKind#SEED_GROUPS}: inside each partition
 * {@code [starts[p], starts[p+1])}, its seeds (training vertices in dense-id order; all its
 * vertices when it has none) one after the other, each followed by the rows only it reaches within
 * two hops of in-neighbors (the neighborhood a sampler draws from, neighbors outside the partition
 * skipped), hop by hop; then the rows two or more seeds reach, most-reached first (ties by id);
 * then the rows no seed reaches, in id order. A batch draws each seed once an epoch, so each seed's
 * own rows are one run of the file whatever the epoch's order; rows many seeds share are read by
 * the first of them or held by the cache, and rows no seed reaches are never read by training and
 * lie apart. Partitions are computed in parallel, each alone, so the result does not depend on the
 * number of threads.
 */
public final class SeedGroupOrder {
  /** Hops of in-neighbors a seed reaches. */
  public static final int HOPS = 2;

  private SeedGroupOrder() {}

  /**
   * The position of every id's row ({@code positions[v]}, a permutation keeping each id in its
   * partition).
   *
   * @param starts the first id of each partition, then the number of ids
   * @param splits the split of every id (training ids are the seeds); null: every id is a seed
   */
  public static int[] positions(CsrGraph csr, VertexTable splits, long[] starts, int threads) {
    int n = csr.numVertices();
    int[] positions = new int[n];
    int parts = starts.length - 1;
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, parts)));
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int p = 0; p < parts; p++) {
        int lo = (int) starts[p];
        int hi = (int) starts[p + 1];
        done.add(pool.submit(() -> order(csr, splits, lo, hi, positions)));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while ordering feature rows", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof RuntimeException re
          ? re
          : new IllegalStateException("ordering feature rows failed", e.getCause());
    } finally {
      pool.shutdownNow();
    }
    return positions;
  }

  /** Fills {@code positions[lo .. hi)} with positions in {@code [lo, hi)}. */
  private static void order(CsrGraph csr, VertexTable splits, int lo, int hi, int[] positions) {
    int size = hi - lo;
    boolean anyTrain = false;
    if (splits != null) {
      for (int v = lo; v < hi && !anyTrain; v++) {
        anyTrain = splits.split(v) == StoreLayout.SPLIT_TRAIN;
      }
    }
    // reach[i]: how many seeds reach row lo + i within HOPS hops (saturating); a seed counts
    // itself. lastSeed[i]: the last seed (+1) that counted it, so each seed counts a row once.
    int[] reach = new int[size];
    int[] lastSeed = new int[size];
    int[][] buf = {new int[16]};
    for (int s = lo; s < hi; s++) {
      if (anyTrain && splits.split(s) != StoreLayout.SPLIT_TRAIN) {
        continue;
      }
      int count = reachOf(csr, s, lo, hi, lastSeed, buf);
      int[] members = buf[0];
      for (int i = 0; i < count; i++) {
        int r = members[i] - lo;
        if (reach[r] < Integer.MAX_VALUE) {
          reach[r]++;
        }
      }
    }
    int next = lo;
    Arrays.fill(lastSeed, 0);
    long[] placed = new long[(size + 63) >>> 6];
    for (int s = lo; s < hi; s++) {
      if (anyTrain && splits.split(s) != StoreLayout.SPLIT_TRAIN) {
        continue;
      }
      int count = reachOf(csr, s, lo, hi, lastSeed, buf);
      int[] members = buf[0];
      for (int i = 0; i < count; i++) {
        int r = members[i] - lo;
        // the seed itself always heads its group; the other rows only when no other seed reaches
        // them
        if (!test(placed, r) && (i == 0 || reach[r] == 1)) {
          set(placed, r);
          positions[members[i]] = next++;
        }
      }
    }
    // Rows several seeds reach, most-reached first, then by id: a stable sort by reach.
    int shared = 0;
    for (int r = 0; r < size; r++) {
      if (!test(placed, r) && reach[r] > 1) {
        shared++;
      }
    }
    long[] keys = new long[shared];
    int k = 0;
    for (int r = 0; r < size; r++) {
      if (!test(placed, r) && reach[r] > 1) {
        keys[k++] = ((long) (Integer.MAX_VALUE - reach[r]) << 32) | r;
      }
    }
    Arrays.sort(keys);
    for (long key : keys) {
      int r = (int) key;
      set(placed, r);
      positions[lo + r] = next++;
    }
    for (int r = 0; r < size; r++) {
      if (!test(placed, r)) {
        positions[lo + r] = next++;
      }
    }
  }

  /**
   * Lists in {@code buf[0]} (grown as needed) the rows seed {@code s} reaches: itself first, then
   * its in-neighbors, then theirs, each once, staying in {@code [lo, hi)}; returns how many. {@code
   * lastSeed} marks the rows already listed for this seed.
   */
  private static int reachOf(CsrGraph csr, int s, int lo, int hi, int[] lastSeed, int[][] buf) {
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

  private static boolean test(long[] bits, int i) {
    return (bits[i >>> 6] & (1L << i)) != 0;
  }

  private static void set(long[] bits, int i) {
    bits[i >>> 6] |= 1L << i;
  }
}
