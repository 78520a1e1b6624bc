package io.fanout.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.store.InvalidInputException;
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
   * The in-degree of {@code v}, whose row starts at {@code start}, as an int.
   *
   * @throws InvalidInputException when the row has more than 2^31-1 entries: positions within a row
   *     are ints (the graph's global positions are longs)
   */
  public static int rowDegree(CsrGraph g, int v, long start) {
    long degree = g.rowEnd(v) - start;
    if (degree > Integer.MAX_VALUE) {
      throw new InvalidInputException(
          "vertex "
              + v
              + " has "
              + degree
              + " in-neighbors; the sampler takes at most 2^31-1 per vertex");
    }
    return (int) degree;
  }

  /**
   * Samples the in-neighbors of {@code v} at hop {@code hop} of the batch keyed {@code batchKey}
   * into {@code out[from ..]}, in ascending position order: exactly what {@link NeighborSampler}
   * does for one destination, for samplers that see one graph partition at a time.
   *
   * @param positions scratch of at least {@code sampleSize(degree, fanout)} entries
   * @return the number of neighbors written
   */
  public int sampleNeighbors(
      CsrGraph g, long batchKey, int hop, int v, int fanout, int[] positions, int[] out, int from) {
    long s = g.rowStart(v);
    int degree = rowDegree(g, v, s);
    int k = sampleSize(degree, fanout);
    fillRow(g, s, degree, k, SampleHash.nodeKey(batchKey, hop, v), positions, out, from);
    return k;
  }

  /**
   * Writes {@code k} of the {@code degree} neighbors of the row starting at position {@code start}
   * into {@code out[from ..]}, in ascending position order: the whole row when {@code k == degree},
   * else the positions {@link #choose} draws under {@code key}.
   *
   * @param positions scratch of at least {@code k} entries
   */
  public void fillRow(
      CsrGraph g, long start, int degree, int k, long key, int[] positions, int[] out, int from) {
    if (k == degree) {
      for (int j = 0; j < k; j++) {
        out[from + j] = g.neighbor(start + j);
      }
    } else {
      choose(key, degree, k, positions, 0);
      for (int j = 0; j < k; j++) {
        out[from + j] = g.neighbor(start + positions[j]);
      }
    }
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
      insertionSort(out, from, from + k); // k is small
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

  /** Sorts {@code a[from, to)} ascending in place; for the few positions of one sampled row. */
  static void insertionSort(int[] a, int from, int to) {
    for (int i = from + 1; i < to; i++) {
      int x = a[i];
      int j = i - 1;
      while (j >= from && a[j] > x) {
        a[j + 1] = a[j];
        j--;
      }
      a[j + 1] = x;
    }
  }
}
