package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link EdgeKeySort} against sorting the keys as longs. */
class EdgeKeySortTest {

  /** The sorted order read back through rowStart/rowEnd, as keys. */
  static long[] readBack(EdgeKeySort s) {
    long[] out = new long[s.size()];
    int k = 0;
    for (long v = s.minDestination(); v <= s.maxDestination(); v++) {
      assertThat(s.rowStart(v)).isEqualTo(k);
      for (int i = s.rowStart(v); i < s.rowEnd(v); i++) {
        out[k++] = v << 32 | s.source(i);
      }
    }
    assertThat(k).isEqualTo(s.size());
    return out;
  }

  static void check(long[] keys) {
    EdgeKeySort s = new EdgeKeySort();
    for (long key : keys) {
      s.add(key);
    }
    s.sort();
    long[] expected = keys.clone();
    Arrays.sort(expected);
    assertThat(readBack(s)).isEqualTo(expected);
  }

  static long[] random(long seed, int edges, int firstDst, int rows, int sources) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] keys = new long[edges];
    for (int i = 0; i < edges; i++) {
      long dst = firstDst + r.nextInt(rows);
      keys[i] = dst << 32 | r.nextInt(sources);
    }
    return keys;
  }

  @Test
  void noKeys() {
    EdgeKeySort s = new EdgeKeySort();
    s.sort();
    assertThat(s.size()).isZero();
    assertThat(s.maxDestination()).isLessThan(s.minDestination());
    assertThat(s.rowStart(0)).isZero();
    assertThat(s.rowEnd(0)).isZero();
  }

  @Test
  void oneKey() {
    check(new long[] {7L << 32 | 3});
  }

  @Test
  void smallWithRepeatsAndLargeIds() {
    check(
        new long[] {
          5L << 32 | 9, 5L << 32 | 1, 5L << 32 | 9, 2L << 32 | Integer.MAX_VALUE, 2L << 32, 9L << 32
        });
    long top = Integer.MAX_VALUE;
    check(new long[] {top << 32 | 4, (top - 1) << 32 | top, top << 32});
  }

  @Test
  void mediumSeededGraphsMatchALongSort() {
    for (long seed = 0; seed < 5; seed++) {
      check(random(seed, 200_000, 1_000_000, 50_000, 2_000_000)); // skewed range start
      check(random(seed + 100, 100_000, 0, 10, 1_000)); // long rows, many repeats
      check(random(seed + 200, 10_000, 0, 100_000, 100)); // mostly empty rows
    }
  }

  @Test
  void rowsOutsideTheRangeAreEmpty() {
    EdgeKeySort s = new EdgeKeySort();
    s.add(10L << 32 | 1);
    s.add(12L << 32 | 2);
    s.sort();
    assertThat(s.rowEnd(9) - s.rowStart(9)).isZero();
    assertThat(s.rowEnd(11) - s.rowStart(11)).isZero();
    assertThat(s.rowEnd(13) - s.rowStart(13)).isZero();
    assertThat(s.rowEnd(12) - s.rowStart(12)).isOne();
  }

  @Test
  void addAfterSortIsRefused() {
    EdgeKeySort s = new EdgeKeySort();
    s.add(1);
    s.sort();
    assertThatThrownBy(() -> s.add(2)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theKeyBufferRefusesToGrowPastItsBudget() {
    EdgeKeySort s = new EdgeKeySort(30_000); // 1024 keys may double (24,576 bytes), 2048 may not
    for (int i = 0; i < 2048; i++) {
      s.add(i);
    }
    assertThatThrownBy(() -> s.add(1))
        .isInstanceOf(EdgeKeySort.TooLarge.class)
        .hasMessageContaining("2048 keys so far");
    assertThat(s.size()).isEqualTo(2048);
  }

  @Test
  void peakBytesBoundsTheArrays() {
    // 1000 keys: buffer of 1024 (8 KiB), sources 4000 bytes, offsets 2 x (rows + 1) ints
    assertThat(EdgeKeySort.peakBytes(1000, 100)).isGreaterThanOrEqualTo(8 * 1024 + 4000 + 808);
    assertThat(EdgeKeySort.peakBytes(0, 0)).isEqualTo(8);
  }
}
