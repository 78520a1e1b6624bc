package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.GraphStore;
import io.fanout.graph.StoreFixtures;
import io.fanout.store.InvalidInputException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RowCacheTest {
  @TempDir Path tmp;

  private GraphStore store(int n, int dim, int[] parts) {
    Path dir = tmp.resolve("g" + n + "x" + dim);
    StoreFixtures.write(dir, StoreFixtures.random(7, n, 3, dim), parts);
    return GraphStore.open(dir);
  }

  /** Random batches of distinct rows below {@code universe}, sizes 1..maxSize. */
  private static int[][] batches(SplittableRandom rnd, int count, int universe, int maxSize) {
    int[][] out = new int[count][];
    for (int b = 0; b < count; b++) {
      int size = 1 + rnd.nextInt(maxSize);
      LinkedHashSet<Integer> rows = new LinkedHashSet<>();
      while (rows.size() < Math.min(size, universe)) {
        rows.add(rnd.nextInt(universe));
      }
      out[b] = rows.stream().mapToInt(Integer::intValue).toArray();
    }
    return out;
  }

  private static int[] counts(int[][] batches) {
    return Arrays.stream(batches).mapToInt(b -> b.length).toArray();
  }

  /**
   * The fewest misses of any cache of {@code cap} rows on {@code seq}, by dynamic programming over
   * every set of held rows: a miss may keep any subset of the held rows plus the missed one.
   */
  private static long bruteForceOpt(int[] seq, int universe, int cap) {
    int states = 1 << universe;
    long inf = Long.MAX_VALUE / 4;
    long[] cost = new long[states];
    Arrays.fill(cost, inf);
    cost[0] = 0;
    for (int r : seq) {
      long[] next = new long[states];
      Arrays.fill(next, inf);
      int bit = 1 << r;
      for (int s = 0; s < states; s++) {
        if (cost[s] >= inf) {
          continue;
        }
        long c = cost[s] + ((s & bit) != 0 ? 0 : 1);
        int avail = s | bit;
        for (int t = avail; ; t = (t - 1) & avail) {
          if (Integer.bitCount(t) <= cap && next[t] > c) {
            next[t] = c;
          }
          if (t == 0) {
            break;
          }
        }
      }
      cost = next;
    }
    return Arrays.stream(cost).min().getAsLong();
  }

  @Test
  void beladyMissesEqualTheBruteForceOptimum() {
    int universe = 7;
    try (GraphStore g = store(universe, 3, new int[] {4, 3})) {
      for (long seed = 1; seed <= 12; seed++) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int[][] bs = batches(rnd, 12, universe, 3);
        int[] seq = Arrays.stream(bs).flatMapToInt(Arrays::stream).toArray();
        for (int cap = 1; cap <= 4; cap++) {
          try (RowCache c = new RowCache(FeatureFiles.open(g, 1), CachePolicy.BELADY, cap * 12L)) {
            c.plan(bs, counts(bs), bs.length);
            float[] out = new float[3 * 3];
            for (int[] b : bs) {
              c.gather(b, 0, b.length, out, 0);
            }
            assertThat(c.misses())
                .as("seed %d, cache of %d rows, sequence %s", seed, cap, Arrays.toString(seq))
                .isEqualTo(bruteForceOpt(seq, universe, cap));
          }
        }
      }
    }
  }

  @Test
  void beladyNeverMissesMoreThanLruAndReadsOnlyMisses() {
    try (GraphStore g = store(300, 4, new int[] {100, 200})) {
      SplittableRandom rnd = new SplittableRandom(3);
      int[][] bs = batches(rnd, 60, 300, 40);
      long lruMisses;
      try (RowCache lru = new RowCache(FeatureFiles.open(g, 2), CachePolicy.LRU, 40 * 16L)) {
        run(lru, bs, 60);
        lruMisses = lru.misses();
      }
      try (RowCache b = new RowCache(FeatureFiles.open(g, 2), CachePolicy.BELADY, 40 * 16L)) {
        run(b, bs, 60);
        assertThat(b.misses()).isLessThan(lruMisses);
        assertThat(b.files().rowsRead()).isEqualTo(b.misses());
        assertThat(b.files().bytesRead()).isEqualTo(b.misses() * 16);
      }
    }
  }

  /** Gathers {@code bs} in order, planning windows of {@code window} batches. */
  private static void run(RowCache c, int[][] bs, int window) {
    float[] out = new float[64 * c.dim()];
    for (int w = 0; w < bs.length; w += window) {
      int n = Math.min(window, bs.length - w);
      int[][] win = Arrays.copyOfRange(bs, w, w + n);
      c.plan(win, counts(win), n);
      for (int[] b : win) {
        c.gather(b, 0, b.length, out, 0);
      }
    }
  }

  @Test
  void everyPolicyGathersWhatTheStoreHolds() {
    int n = 500;
    int dim = 7;
    try (GraphStore g = store(n, dim, new int[] {120, 250, 130})) {
      for (CachePolicy p : CachePolicy.values()) {
        for (long rows : new long[] {0, 5, 50, 600}) {
          SplittableRandom rnd = new SplittableRandom(rows * 31 + p.ordinal());
          int[][] bs = batches(rnd, 40, n, 200);
          try (RowCache c = new RowCache(FeatureFiles.open(g, 3), p, rows * dim * 4)) {
            float[] got = new float[200 * dim + 5];
            float[] want = new float[200 * dim + 5];
            for (int w = 0; w < bs.length; w += 7) {
              int k = Math.min(7, bs.length - w);
              int[][] win = Arrays.copyOfRange(bs, w, w + k);
              c.plan(win, counts(win), k);
              for (int[] b : win) {
                Arrays.fill(got, -1f);
                c.gather(b, 0, b.length, got, 5);
                g.features().gather(b, 0, b.length, want, 5);
                assertThat(Arrays.copyOfRange(got, 5, 5 + b.length * dim))
                    .as("policy %s, %d rows", p, rows)
                    .containsExactly(Arrays.copyOfRange(want, 5, 5 + b.length * dim));
                assertThat(c.residentRows()).isLessThanOrEqualTo(c.capacityRows());
              }
            }
          }
        }
      }
    }
  }

  @Test
  void duplicateRowsInOneGatherAreServedToo() {
    try (GraphStore g = store(20, 2, new int[] {20})) {
      int[][] bs = {{3, 5, 3, 5, 9}, {5, 9, 1}};
      try (RowCache c = new RowCache(FeatureFiles.open(g, 1), CachePolicy.BELADY, 2 * 8L)) {
        c.plan(bs, counts(bs), 2);
        for (int[] b : bs) {
          float[] got = new float[b.length * 2];
          float[] want = new float[b.length * 2];
          c.gather(b, 0, b.length, got, 0);
          g.features().gather(b, 0, b.length, want, 0);
          assertThat(got).containsExactly(want);
        }
      }
    }
  }

  @Test
  void lruMatchesAReferenceLru() {
    int n = 80;
    try (GraphStore g = store(n, 2, new int[] {50, 30})) {
      for (int cap : new int[] {1, 3, 10, 40}) {
        SplittableRandom rnd = new SplittableRandom(cap);
        int[][] bs = batches(rnd, 100, n, 12);
        LinkedHashSet<Integer> ref = new LinkedHashSet<>();
        long refMisses = 0;
        try (RowCache c = new RowCache(FeatureFiles.open(g, 1), CachePolicy.LRU, cap * 8L)) {
          float[] out = new float[12 * 2];
          for (int[] b : bs) {
            c.gather(b, 0, b.length, out, 0);
            for (int r : b) {
              if (!ref.remove(r)) {
                refMisses++;
                if (ref.size() == cap) {
                  Iterator<Integer> oldest = ref.iterator();
                  oldest.next();
                  oldest.remove();
                }
              }
              ref.add(r);
            }
            assertThat(c.misses()).isEqualTo(refMisses);
            for (int r = 0; r < n; r++) {
              assertThat(c.holds(r)).as("row %d, cache of %d", r, cap).isEqualTo(ref.contains(r));
            }
          }
        }
      }
    }
  }

  @Test
  void capacityIsTheGivenBytesInRows() {
    try (GraphStore g = store(100, 5, new int[] {100})) {
      try (RowCache c = new RowCache(FeatureFiles.open(g, 1), CachePolicy.LRU, 20 * 5 * 4 + 19)) {
        assertThat(c.capacityRows()).isEqualTo(20);
        float[] out = new float[100 * 5];
        int[] all = new int[100];
        Arrays.setAll(all, i -> i);
        c.gather(all, 0, 100, out, 0);
        assertThat(c.residentRows()).isEqualTo(20);
      }
      try (RowCache c = new RowCache(FeatureFiles.open(g, 1), CachePolicy.NONE, 1 << 20)) {
        assertThat(c.capacityRows()).isZero();
      }
    }
  }

  @Test
  void badOptionsAreRejected() {
    assertThatThrownBy(() -> CachePolicy.parse("fifo"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--feature-cache")
        .hasMessageContaining("belady, lru, none");
    try (GraphStore g = store(10, 2, new int[] {10})) {
      assertThatThrownBy(() -> new RowCache(FeatureFiles.open(g, 1), CachePolicy.LRU, -1))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("--feature-cache-bytes");
    }
  }
}
