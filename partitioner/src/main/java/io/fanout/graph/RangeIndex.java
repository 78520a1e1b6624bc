package io.fanout.graph;

/**
 * Finds which of a sequence of contiguous ranges holds a position: range {@code i} is {@code
 * [starts[i], starts[i + 1])}. A bucket table over the high bits of the position gives the
 * candidate ranges, so lookups take O(1) for balanced ranges and O(log n) at worst, without
 * allocating. Empty ranges are never returned.
 */
final class RangeIndex {
  private final long[] starts;
  private final int[] bucketFirst;
  private final int bucketShift;

  /**
   * @param starts ascending range starts, {@code starts[0] == 0}, with the total as last element
   *     (so {@code starts.length} is the number of ranges + 1)
   */
  RangeIndex(long[] starts) {
    this.starts = starts;
    long total = starts[starts.length - 1];
    int ranges = starts.length - 1;
    int buckets = Integer.highestOneBit(Math.max(1, ranges) * 4 - 1) << 1;
    int s = 0;
    while (s < 62 && (total >>> s) >= buckets) {
      s++;
    }
    this.bucketShift = s;
    int nb = (int) (total >>> s) + 2;
    bucketFirst = new int[nb];
    int r = 0;
    for (int b = 0; b < nb; b++) {
      long pos = (long) b << s;
      while (r < ranges - 1 && starts[r + 1] <= pos) {
        r++;
      }
      bucketFirst[b] = r;
    }
  }

  /** The range holding {@code pos}, for {@code 0 <= pos < total}. */
  int find(long pos) {
    int b = (int) (pos >>> bucketShift);
    int lo = bucketFirst[b];
    int hi = bucketFirst[b + 1];
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (starts[mid] <= pos) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }
}
