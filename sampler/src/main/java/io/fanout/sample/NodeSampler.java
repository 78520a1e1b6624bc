package io.fanout.sample;

import java.util.Arrays;

/**
 * Uniform sampling without replacement of one node's neighbor positions, by Robert Floyd's
 * algorithm: {@code k} draws for {@code k} distinct positions out of {@code degree}, each draw
 * {@link SampleHash#draw}{@code (key, step)}. The chosen positions come out sorted ascending, so
 * the sample (and the neighbor reads it causes) is a function of the key, the degree and {@code k}
 * only.
 *
 * <p>One instance per thread: it reuses its membership set.
 */
public final class NodeSampler {
  /** Up to this many picks, membership is a linear scan of the picks so far. */
  private static final int LINEAR_LIMIT = 32;

  private final DedupMap picked = new DedupMap(64);

  /** Number of neighbors a node of {@code degree} contributes with {@code fanout} (-1 = all). */
  public static int sampleSize(long degree, int fanout) {
    long k = fanout < 0 ? degree : Math.min(degree, fanout);
    if (k > Integer.MAX_VALUE) {
      throw new IllegalStateException("a node has " + degree + " neighbors, more than 2^31-1");
    }
    return (int) k;
  }

  /**
   * Writes {@code k} distinct positions in {@code [0, degree)}, ascending, into {@code out[from ..
   * from+k)}. {@code k == degree} gives {@code 0 .. degree-1}.
   */
  public void choose(long key, int degree, int k, int[] out, int from) {
    if (k >= degree) {
      for (int j = 0; j < degree; j++) {
        out[from + j] = j;
      }
      return;
    }
    if (k <= LINEAR_LIMIT) {
      int n = 0;
      for (int j = degree - k; j < degree; j++) {
        int t = SampleHash.bounded(SampleHash.draw(key, j), j + 1);
        for (int q = from; q < from + n; q++) {
          if (out[q] == t) {
            t = j;
            break;
          }
        }
        out[from + n++] = t;
      }
      // Insertion sort: k is small.
      for (int a = from + 1; a < from + k; a++) {
        int x = out[a];
        int b = a - 1;
        while (b >= from && out[b] > x) {
          out[b + 1] = out[b];
          b--;
        }
        out[b + 1] = x;
      }
      return;
    }
    picked.clear();
    int n = 0;
    for (int j = degree - k; j < degree; j++) {
      int t = SampleHash.bounded(SampleHash.draw(key, j), j + 1);
      if (picked.putIfAbsent(t, 0) >= 0) {
        t = j;
        picked.putIfAbsent(t, 0);
      }
      out[from + n++] = t;
    }
    Arrays.sort(out, from, from + k);
  }
}
