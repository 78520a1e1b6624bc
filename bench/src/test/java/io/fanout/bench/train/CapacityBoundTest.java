package io.fanout.bench.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.features.OfflineMin;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CapacityBoundTest {
  /** {@code count} batches of distinct rows below {@code universe}, sizes 0..maxSize. */
  private static int[][] batches(SplittableRandom rnd, int count, int universe, int maxSize) {
    int[][] out = new int[count][];
    for (int b = 0; b < count; b++) {
      int[] all = new int[universe];
      for (int i = 0; i < universe; i++) {
        all[i] = i;
      }
      int size = rnd.nextInt(Math.min(maxSize, universe) + 1);
      for (int i = 0; i < size; i++) {
        int j = i + rnd.nextInt(universe - i);
        int t = all[i];
        all[i] = all[j];
        all[j] = t;
      }
      out[b] = Arrays.copyOf(all, size);
    }
    return out;
  }

  private static int[] flat(int[][] bs) {
    return Arrays.stream(bs).flatMapToInt(Arrays::stream).toArray();
  }

  private static int[] counts(int[][] bs) {
    return Arrays.stream(bs).mapToInt(b -> b.length).toArray();
  }

  private static long bound(int[][] bs, int universe, long capacity) {
    return CapacityBound.rowsRead(flat(bs), counts(bs), bs.length, universe, capacity);
  }

  @Test
  void neverExceedsTheOfflineOptimumAndMeetsItAtTheExtremes() {
    int universe = 12;
    for (long seed = 1; seed <= 40; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      int[][] bs = batches(rnd, 1 + rnd.nextInt(20), universe, 8);
      int[] seq = flat(bs);
      long distinct = Arrays.stream(seq).distinct().count();
      for (int cap = 0; cap <= universe; cap++) {
        long opt = OfflineMin.misses(seq, seq.length, universe, cap);
        assertThat(bound(bs, universe, cap))
            .as("seed %d, cache of %d rows, batches %s", seed, cap, Arrays.deepToString(bs))
            .isLessThanOrEqualTo(opt)
            .isGreaterThanOrEqualTo(distinct);
      }
      assertThat(bound(bs, universe, 0)).isEqualTo(seq.length);
      assertThat(bound(bs, universe, universe)).isEqualTo(distinct);
      assertThat(OfflineMin.misses(seq, seq.length, universe, universe)).isEqualTo(distinct);
    }
  }

  @Test
  void aRepeatedBatchLargerThanTheCacheIsLimitedByTheCacheAlone() {
    // every batch asks for the same 10 rows: the optimum keeps any 4 and hits exactly those
    int[][] bs = new int[6][];
    for (int b = 0; b < bs.length; b++) {
      bs[b] = new int[] {3, 9, 0, 14, 7, 1, 12, 5, 10, 2};
    }
    int[] seq = flat(bs);
    long expected = 10 + 5 * (10 - 4);
    assertThat(bound(bs, 16, 4)).isEqualTo(expected);
    assertThat(OfflineMin.misses(seq, seq.length, 16, 4)).isEqualTo(expected);
  }

  @Test
  void rowsSeenLongAgoCompeteForTheCacheOnlyInTheOptimum() {
    // two sets take turns: a cache of 2 can keep only one of them, which the bound does not see
    int[][] bs = {{0, 1}, {2, 3}, {0, 1}, {2, 3}};
    int[] seq = flat(bs);
    assertThat(bound(bs, 4, 2)).isEqualTo(4);
    assertThat(OfflineMin.misses(seq, seq.length, 4, 2)).isEqualTo(6);
  }

  @Test
  void sizesZeroAndOne() {
    assertThat(CapacityBound.rowsRead(new int[0], new int[0], 0, 0, 5)).isZero();
    assertThat(CapacityBound.rowsRead(new int[0], new int[] {0, 0}, 2, 3, 5)).isZero();
    assertThat(CapacityBound.rowsRead(new int[] {0}, new int[] {1}, 1, 1, 0)).isEqualTo(1);
    assertThat(CapacityBound.rowsRead(new int[] {0, 0}, new int[] {1, 1}, 2, 1, 1)).isEqualTo(1);
    assertThat(CapacityBound.rowsRead(new int[] {0, 0}, new int[] {1, 1}, 2, 1, 0)).isEqualTo(2);
  }

  @Test
  void rejectsRepeatedRowsInABatchCountsPastTheSequenceAndNegativeCapacity() {
    assertThatThrownBy(
            () -> CapacityBound.rowsRead(new int[] {3, 4, 2, 4}, new int[] {1, 3}, 2, 5, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batch 1 asks for row 4 twice");
    assertThatThrownBy(() -> CapacityBound.rowsRead(new int[] {1, 2}, new int[] {1, 2}, 2, 3, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batch 1 of 2 rows runs past the 2 accesses");
    assertThatThrownBy(() -> CapacityBound.rowsRead(new int[] {1}, new int[] {1}, 1, 3, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("capacity -1 rows");
  }
}
