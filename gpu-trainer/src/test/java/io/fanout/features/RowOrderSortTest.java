package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link RowOrderSort} against {@link Arrays#sort}: read requests of every size and row range. */
class RowOrderSortTest {
  @Test
  void sortsLikeAComparisonSortForEverySizeAndRowRange() {
    RowOrderSort sorter = new RowOrderSort();
    SplittableRandom rnd = new SplittableRandom(17);
    for (int n : new int[] {0, 1, 2, 1023, 1024, 5000, 100_000}) {
      for (int rows : new int[] {1, 2, 2048, 2049, 3_000_000, Integer.MAX_VALUE}) {
        long[] keys = new long[n + 5];
        for (int i = 0; i < n; i++) {
          // few distinct rows for small ranges: duplicates keep their index order
          long row = rnd.nextInt(rows);
          keys[i] = (row << 32) | i;
        }
        long[] want = Arrays.copyOf(keys, n);
        Arrays.sort(want);
        long[] got = sorter.sort(keys, n, rows);
        assertThat(Arrays.copyOf(got, n))
            .as("%d keys, rows below %d", n, rows)
            .isEqualTo(want); // containsExactly takes seconds on 100,000 longs
      }
    }
  }

  @Test
  void theLargestRowsSortAboveTheSmallest() {
    int n = 4096;
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      long row = i % 2 == 0 ? Integer.MAX_VALUE - i : i;
      keys[i] = (row << 32) | i;
    }
    long[] got = new RowOrderSort().sort(keys, n, Integer.MAX_VALUE);
    for (int i = 1; i < n; i++) {
      assertThat(got[i]).isGreaterThan(got[i - 1]);
    }
    assertThat(got[n - 1] >>> 32).isEqualTo(Integer.MAX_VALUE);
  }
}
