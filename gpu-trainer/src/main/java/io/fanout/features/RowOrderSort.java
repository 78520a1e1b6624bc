package io.fanout.features;

import java.util.Arrays;

/**
 * Sorts read requests {@code (row << 32) | index} by row, then index, in linear time: a stable
 * least-significant-digit radix sort on the row's bits only (11 bits a pass, as many passes as the
 * largest row needs), whose input is already in index order. The same result as {@link
 * Arrays#sort(long[], int, int)} on those keys, for non-negative rows and indices.
 */
final class RowOrderSort {
  private static final int DIGIT_BITS = 11;
  private static final int RADIX = 1 << DIGIT_BITS;

  /** Below this many keys a comparison sort is cheaper than clearing the counts. */
  private static final int SMALL = 1024;

  private final int[] counts = new int[RADIX];
  private long[] scratch = new long[0];

  /**
   * Sorts {@code keys[0 .. n)}, whose rows are below {@code rows}, and returns the array that holds
   * the result: {@code keys} itself or this sorter's scratch array (valid until the next call).
   */
  long[] sort(long[] keys, int n, int rows) {
    if (n < SMALL) {
      Arrays.sort(keys, 0, n);
      return keys;
    }
    if (scratch.length < n) {
      scratch = new long[Math.max(n, 2 * scratch.length)];
    }
    int bits = 32 - Integer.numberOfLeadingZeros(Math.max(1, rows - 1));
    long[] src = keys;
    long[] dst = scratch;
    for (int shift = 32; shift < 32 + bits; shift += DIGIT_BITS) {
      Arrays.fill(counts, 0);
      for (int i = 0; i < n; i++) {
        counts[(int) (src[i] >>> shift) & (RADIX - 1)]++;
      }
      int sum = 0;
      for (int d = 0; d < RADIX; d++) {
        int c = counts[d];
        counts[d] = sum;
        sum += c;
      }
      for (int i = 0; i < n; i++) {
        long k = src[i];
        dst[counts[(int) (k >>> shift) & (RADIX - 1)]++] = k;
      }
      long[] t = src;
      src = dst;
      dst = t;
    }
    return src;
  }
}
