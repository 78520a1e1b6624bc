package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.GraphStore;
import io.fanout.graph.StoreFixtures;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
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
  void offlineMinEqualsTheBruteForceOptimumAndBoundsTheWindowedCache() {
    int universe = 8;
    try (GraphStore g = store(universe, 2, new int[] {8})) {
      for (long seed = 1; seed <= 15; seed++) {
        SplittableRandom rnd = new SplittableRandom(seed * 7);
        int[][] bs = batches(rnd, 14, universe, 4);
        int[] seq = Arrays.stream(bs).flatMapToInt(Arrays::stream).toArray();
        for (int cap = 0; cap <= 5; cap++) {
          long opt = OfflineMin.misses(seq, seq.length, universe, cap);
          assertThat(opt)
              .as("seed %d, cache of %d rows, sequence %s", seed, cap, Arrays.toString(seq))
              .isEqualTo(bruteForceOpt(seq, universe, cap));
          if (cap == 0) {
            continue;
          }
          // one window over everything: the cache's Belady is the optimum; windows of 3 batches
          // can only miss more
          try (RowCache whole =
                  new RowCache(FeatureFiles.open(g, 1), CachePolicy.BELADY, cap * 8L);
              RowCache windowed =
                  new RowCache(FeatureFiles.open(g, 1), CachePolicy.BELADY, cap * 8L)) {
            run(whole, bs, bs.length);
            run(windowed, bs, 3);
            assertThat(whole.misses()).isEqualTo(opt);
            assertThat(windowed.misses()).isGreaterThanOrEqualTo(opt);
          }
        }
      }
    }
  }

  @Test
  void offlineMinOnALongSequenceMatchesTheCacheWithOneWindow() {
    int n = 3000;
    try (GraphStore g = store(n, 2, new int[] {1000, 2000})) {
      SplittableRandom rnd = new SplittableRandom(99);
      int[][] bs = batches(rnd, 200, n, 64);
      int[] seq = Arrays.stream(bs).flatMapToInt(Arrays::stream).toArray();
      for (int cap : new int[] {1, 30, 300, 2999}) {
        try (RowCache whole = new RowCache(FeatureFiles.open(g, 2), CachePolicy.BELADY, cap * 8L)) {
          run(whole, bs, bs.length);
          assertThat(OfflineMin.misses(seq, seq.length, n, cap))
              .as("cache of %d rows", cap)
              .isEqualTo(whole.misses());
        }
      }
    }
  }

  /** A window short against the vertex count finds next uses through a map, and is optimal too. */
  @Test
  void aShortWindowPlannedThroughTheMapIsTheOptimumToo() {
    int n = 3000;
    assertThat(RowCacheSizing.indexesByVertex(n, 64 * 200)).isTrue();
    assertThat(RowCacheSizing.indexesByVertex(n, 64 * 3)).isFalse();
    try (GraphStore g = store(n, 2, new int[] {1000, 2000})) {
      for (long seed = 1; seed <= 10; seed++) {
        // rows drawn from a few hundred, so that a short window reuses some
        SplittableRandom rnd = new SplittableRandom(seed);
        int[][] bs = batches(rnd, 3, 300, 64);
        int[] seq = Arrays.stream(bs).flatMapToInt(Arrays::stream).toArray();
        for (int cap : new int[] {1, 20, 150}) {
          try (RowCache c = new RowCache(FeatureFiles.open(g, 2), CachePolicy.BELADY, cap * 8L)) {
            run(c, bs, bs.length);
            assertThat(c.misses())
                .as("seed %d, cache of %d rows", seed, cap)
                .isEqualTo(OfflineMin.misses(seq, seq.length, n, cap));
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
                // isEqualTo compares as Arrays.equals; containsExactly is slow on thousands of
                // floats
                assertThat(Arrays.copyOfRange(got, 5, 5 + b.length * dim))
                    .as("policy %s, %d rows", p, rows)
                    .isEqualTo(Arrays.copyOfRange(want, 5, 5 + b.length * dim));
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

  /** A store of {@code n} random rows of {@code dim} columns in encoding {@code enc}. */
  private GraphStore encodedStore(int n, int dim, int enc, int[] parts) {
    StoreFixtures.Graph graph = StoreFixtures.random(11, n, 3, dim);
    FeatureParams params;
    if (enc == StoreLayout.ENCODING_F32 || enc == StoreLayout.ENCODING_F16) {
      params = FeatureParams.plain(enc, dim);
    } else if (enc == StoreLayout.ENCODING_PQ) {
      int gs = 3;
      int groups = (dim + gs - 1) / gs;
      float[][] books = new float[groups][];
      SplittableRandom rnd = new SplittableRandom(5);
      for (int grp = 0; grp < groups; grp++) {
        books[grp] = new float[16 * Math.min(gs, dim - grp * gs)];
        for (int i = 0; i < books[grp].length; i++) {
          books[grp][i] = (float) rnd.nextGaussian();
        }
      }
      params = FeatureParams.pq(dim, gs, 16, books);
    } else {
      float[] min = new float[dim];
      float[] max = new float[dim];
      Arrays.fill(min, Float.MAX_VALUE);
      Arrays.fill(max, -Float.MAX_VALUE);
      for (float[] row : graph.features) {
        for (int c = 0; c < dim; c++) {
          min[c] = Math.min(min[c], row[c]);
          max[c] = Math.max(max[c], row[c]);
        }
      }
      params = FeatureParams.affine(enc, min, max);
    }
    Path dir = tmp.resolve("enc" + enc + "n" + n);
    StoreFixtures.write(dir, graph, parts, params);
    return GraphStore.open(dir);
  }

  @Test
  void encodedStoresAreCachedEncodedAndDecodedAsTheMappedStore() {
    int n = 400;
    int dim = 10;
    int[] encs = {
      StoreLayout.ENCODING_F16,
      StoreLayout.ENCODING_INT8,
      StoreLayout.ENCODING_INT4,
      StoreLayout.ENCODING_PQ
    };
    for (int enc : encs) {
      try (GraphStore g = encodedStore(n, dim, enc, new int[] {150, 90, 160})) {
        int rowBytes = g.featureParams().rowBytes();
        assertThat(rowBytes).isLessThan(4 * dim);
        for (CachePolicy p : CachePolicy.values()) {
          for (long rows : new long[] {1, 7, 60, 500}) {
            SplittableRandom rnd = new SplittableRandom(rows * 17 + p.ordinal() + enc);
            int[][] bs = batches(rnd, 30, n, 250);
            try (RowCache c = new RowCache(FeatureFiles.open(g, 4), p, rows * rowBytes + 1)) {
              assertThat(c.files().rowBytes()).isEqualTo(rowBytes);
              assertThat(c.files().encoding()).isEqualTo(StoreLayout.encodingName(enc));
              if (p != CachePolicy.NONE) {
                assertThat(c.capacityRows()).isEqualTo((int) Math.min(rows, n));
              }
              float[] got = new float[250 * dim + 3];
              float[] want = new float[250 * dim + 3];
              for (int w = 0; w < bs.length; w += 6) {
                int k = Math.min(6, bs.length - w);
                int[][] win = Arrays.copyOfRange(bs, w, w + k);
                c.plan(win, counts(win), k);
                for (int[] b : win) {
                  Arrays.fill(got, Float.NaN);
                  c.gather(b, 0, b.length, got, 3);
                  g.features().gather(b, 0, b.length, want, 3);
                  assertThat(Arrays.copyOfRange(got, 3, 3 + b.length * dim))
                      .as("%s, policy %s, %d rows", c.files().encoding(), p, rows)
                      .isEqualTo(Arrays.copyOfRange(want, 3, 3 + b.length * dim));
                }
              }
              assertThat(c.files().bytesRead()).isEqualTo(c.misses() * rowBytes);
            }
          }
        }
      }
    }
  }

  /**
   * {@code O_DIRECT} reads: every policy on f32, int8 and pq stores gathers exactly the mapped
   * store's floats, over part files whose ends are not block-aligned; bytes read are the misses'
   * encoded rows, the calls moved at least that (whole blocks, gaps between merged rows), and rows
   * a few hundred bytes apart share a call.
   */
  @Test
  void directReadsGatherWhatTheStoreHolds() {
    int n = 3000;
    int dim = 10;
    int[] encs = {StoreLayout.ENCODING_F32, StoreLayout.ENCODING_INT8, StoreLayout.ENCODING_PQ};
    for (int enc : encs) {
      try (GraphStore g = encodedStore(n, dim, enc, new int[] {1000, 1234, 766})) {
        int rowBytes = g.featureParams().rowBytes();
        for (CachePolicy p : CachePolicy.values()) {
          for (long rows : new long[] {1, 40, 400, 3000}) {
            SplittableRandom rnd = new SplittableRandom(rows * 13 + p.ordinal() + 7L * enc);
            int[][] bs = batches(rnd, 20, n, 600);
            try (RowCache c = new RowCache(FeatureFiles.open(g, 4, true), p, rows * rowBytes + 1)) {
              assertThat(c.files().direct()).isTrue();
              float[] got = new float[600 * dim + 3];
              float[] want = new float[600 * dim + 3];
              for (int w = 0; w < bs.length; w += 5) {
                int k = Math.min(5, bs.length - w);
                int[][] win = Arrays.copyOfRange(bs, w, w + k);
                c.plan(win, counts(win), k);
                for (int[] b : win) {
                  Arrays.fill(got, Float.NaN);
                  c.gather(b, 0, b.length, got, 3);
                  g.features().gather(b, 0, b.length, want, 3);
                  assertThat(Arrays.copyOfRange(got, 3, 3 + b.length * dim))
                      .as("direct, %s, policy %s, %d rows", c.files().encoding(), p, rows)
                      .isEqualTo(Arrays.copyOfRange(want, 3, 3 + b.length * dim));
                }
              }
              assertThat(c.files().bytesRead()).isEqualTo(c.misses() * rowBytes);
              assertThat(c.files().bytesTransferred())
                  .isGreaterThanOrEqualTo(c.files().bytesRead());
              if (p == CachePolicy.NONE) {
                assertThat(c.files().reads()).isLessThan(c.misses() / 10);
              }
            }
          }
        }
      }
    }
  }

  /**
   * Through the page cache, rows at most a page (4096 bytes) apart share a call, which moves the
   * gap too; rows further apart are read by calls of their own.
   */
  @Test
  void bufferedReadsMergeRowsAtMostAPageApart() {
    try (GraphStore g = store(1000, 4, new int[] {1000});
        FeatureFiles f = FeatureFiles.open(g, 1, false)) {
      // 16-byte rows: 10 ends 256 rows (4096 bytes) before 267 starts, 525 starts 4112 bytes after
      int[] rows = {3, 4, 5, 7, 9, 10, 267, 525};
      int[] at = new int[rows.length];
      for (int i = 0; i < rows.length; i++) {
        at[i] = 4 * (rows.length - 1 - i);
      }
      float[] out = new float[rows.length * 4];
      f.read(rows, at, rows.length, out);
      assertThat(f.reads()).isEqualTo(2);
      assertThat(f.bytesRead()).isEqualTo(rows.length * 16);
      assertThat(f.bytesTransferred()).isEqualTo((267 - 3 + 1) * 16 + 16);
      float[] want = new float[rows.length * 4];
      for (int i = 0; i < rows.length; i++) {
        g.features().gather(rows, i, 1, want, at[i]);
      }
      assertThat(out).containsExactly(want);
    }
  }

  @Test
  void slotsReusedWithinOneParallelGatherHoldTheirRow() {
    int n = 2000;
    int dim = 6;
    for (int enc : new int[] {StoreLayout.ENCODING_F32, StoreLayout.ENCODING_INT8}) {
      try (GraphStore g = encodedStore(n, dim, enc, new int[] {700, 1300})) {
        int rowBytes = g.featureParams().rowBytes();
        for (long seed = 1; seed <= 20; seed++) {
          SplittableRandom rnd = new SplittableRandom(seed);
          int[][] bs = batches(rnd, 3, n, 1500);
          for (CachePolicy p : new CachePolicy[] {CachePolicy.LRU, CachePolicy.BELADY}) {
            try (RowCache c = new RowCache(FeatureFiles.open(g, 4), p, 5L * rowBytes)) {
              c.plan(bs, counts(bs), bs.length);
              float[] out = new float[1500 * dim];
              c.gather(bs[0], 0, bs[0].length, out, 0);
              int[] held = new int[c.capacityRows()];
              int k = 0;
              for (int r = 0; r < n; r++) {
                if (c.holds(r)) {
                  held[k++] = r;
                }
              }
              assertThat(k).isEqualTo(c.residentRows());
              // gather the held rows again, as hits: what the slots hold must be those rows
              long before = c.misses();
              float[] got = new float[k * dim];
              float[] want = new float[k * dim];
              if (p == CachePolicy.BELADY) {
                c.plan(new int[][] {held}, new int[] {k}, 1);
              }
              c.gather(held, 0, k, got, 0);
              g.features().gather(held, 0, k, want, 0);
              assertThat(c.misses()).isEqualTo(before);
              assertThat(got).as("seed %d, %s", seed, p).isEqualTo(want);
            }
          }
        }
      }
    }
  }

  /** A planned node id outside the store names the id and the store's size, on either index. */
  @Test
  void aPlannedNodeOutsideTheStoreIsRefused() {
    try (GraphStore g = store(100, 2, new int[] {100})) {
      // 40 accesses index by vertex (100 <= 160), 4 through the map
      for (int[] bad : new int[][] {java.util.stream.IntStream.range(60, 100).toArray(), {1, 2}}) {
        bad[bad.length - 1] = 100;
        int[][] bs = {bad, {3, 4}};
        try (RowCache c = new RowCache(FeatureFiles.open(g, 1), CachePolicy.BELADY, 10 * 8L)) {
          assertThatThrownBy(() -> c.plan(bs, counts(bs), 2))
              .isInstanceOf(InvalidInputException.class)
              .hasMessageContaining("node 100")
              .hasMessageContaining("has 100 vertices");
          // the ids before it were forgotten: a good window plans and gathers as usual
          int[][] good = {{1, 2, 99}, {2}};
          c.plan(good, counts(good), 2);
          float[] out = new float[3 * 2];
          c.gather(good[0], 0, 3, out, 0);
          c.gather(good[1], 0, 1, out, 0);
          assertThat(c.misses()).isEqualTo(3);
          assertThat(c.hits()).isEqualTo(1);
        }
      }
    }
  }

  /**
   * Unplanned policies check a batch's node ids before touching the cache, on either slot index (a
   * 40-row cache indexes 100 vertices by vertex, a 10-row one through the map).
   */
  @Test
  void anUnplannedNodeOutsideTheStoreIsRefusedBeforeAnythingChanges() throws Exception {
    try (GraphStore g = store(100, 2, new int[] {100})) {
      for (CachePolicy p : new CachePolicy[] {CachePolicy.LRU, CachePolicy.NONE}) {
        for (int rows : new int[] {40, 10}) {
          try (RowCache c = new RowCache(FeatureFiles.open(g, 1), p, rows * 8L)) {
            float[] out = new float[4 * 2];
            c.gather(new int[] {1, 2}, 0, 2, out, 0);
            for (int bad : new int[] {100, -1}) {
              assertThatThrownBy(() -> c.gather(new int[] {3, bad}, 0, 2, out, 0))
                  .isInstanceOf(InvalidInputException.class)
                  .hasMessageContaining("node " + bad)
                  .hasMessageContaining("has 100 vertices");
              assertThatThrownBy(() -> c.resolve(new int[] {bad, 3}, 0, 2, new int[2]))
                  .isInstanceOf(InvalidInputException.class)
                  .hasMessageContaining("node " + bad);
            }
            assertThat(c.misses()).isEqualTo(2);
            assertThat(c.holds(3)).isFalse();
            assertThat(c.holds(100)).isFalse();
            c.gather(new int[] {2, 3}, 0, 2, out, 0);
            assertThat(c.hits()).isEqualTo(p == CachePolicy.LRU ? 1 : 0);
            float[] want = new float[2 * 2];
            g.features().gather(new int[] {2, 3}, 0, 2, want, 0);
            assertThat(Arrays.copyOf(out, 4)).containsExactly(want);
          }
        }
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
