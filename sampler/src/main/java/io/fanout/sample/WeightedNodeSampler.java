package io.fanout.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import java.util.Arrays;

/**
 * Weighted sampling without replacement of one node's neighbor positions, with probabilities
 * proportional to the edge weights, by Efraimidis and Spirakis' exponential keys: position {@code
 * j} of weight {@code w > 0} gets the key {@code -ln(u_j) / w}, with {@code u_j} uniform in (0, 1)
 * from {@link SampleHash#draw}{@code (key, j)}, and the {@code k} smallest keys win (ties to the
 * lower position). Zero weights are never chosen; a node with at most {@code k} positive weights
 * gives all of them. The chosen positions come out ascending, so the sample is a function of the
 * key, the weights and {@code k} only, whoever asks.
 *
 * <p>One instance per thread: the partial selection (a max-heap of the {@code k} smallest keys)
 * reuses its scratch arrays, so a draw allocates nothing once they have grown.
 */
public final class WeightedNodeSampler {
  /** 2^-53: turns the top 53 bits of a random word into a double in [0, 1). */
  private static final double UNIT = 0x1.0p-53;

  /**
   * Keys are skipped without a log when {@code 1 - u >= top * w * SKIP_MARGIN}: since {@code -ln(u)
   * > 1 - u}, their key exceeds the current k-th smallest; the margin keeps rounding from ever
   * skipping a key that could win.
   */
  private static final double SKIP_MARGIN = 1 + 1e-9;

  private double[] heapKeys = new double[64];
  private int[] heapPos = new int[64];
  private float[] row = new float[256];

  /**
   * The number of neighbors {@link #choose} writes at most for {@code degree} and {@code fanout}
   * (-1 = all): the size {@code out} needs.
   */
  public static int capacity(long degree, int fanout) {
    return NodeSampler.sampleSize(degree, fanout);
  }

  /**
   * Writes the chosen positions of the row {@code [start, start + degree)} of {@code weights},
   * relative to {@code start} and ascending, into {@code out[from ..]}: {@code min(fanout,
   * positive)} of them, where {@code positive} counts the positive weights ({@code fanout} -1 = all
   * positive ones).
   *
   * @param out room for at least {@link #capacity}{@code (degree, fanout)} entries from {@code
   *     from}
   * @return the number of positions written
   */
  public int choose(
      long key, EdgeWeights weights, long start, int degree, int fanout, int[] out, int from) {
    if (row.length < degree) {
      row = new float[Math.max(degree, 2 * row.length)];
    }
    float[] rw = row;
    weights.copy(start, rw, 0, degree);
    if (fanout < 0 || fanout >= degree) {
      int n = 0;
      for (int j = 0; j < degree; j++) {
        if (rw[j] > 0) {
          out[from + n++] = j;
        }
      }
      return n;
    }
    int k = fanout;
    if (heapKeys.length < k) {
      heapKeys = new double[Math.max(k, 2 * heapKeys.length)];
      heapPos = new int[heapKeys.length];
    }
    double[] hk = heapKeys;
    int[] hp = heapPos;
    int n = 0;
    for (int j = 0; j < degree; j++) {
      float w = rw[j];
      if (!(w > 0)) {
        continue;
      }
      double u = ((SampleHash.draw(key, j) >>> 11) + 0.5) * UNIT; // in (0, 1)
      if (n == k && 1 - u >= hk[0] * w * SKIP_MARGIN) {
        continue; // -ln(u) > 1 - u: this key is above the k-th smallest, no log needed
      }
      double e = -Math.log(u) / w;
      if (n < k) {
        int c = n++;
        while (c > 0) {
          int parent = (c - 1) >>> 1;
          if (!greater(e, j, hk[parent], hp[parent])) {
            break;
          }
          hk[c] = hk[parent];
          hp[c] = hp[parent];
          c = parent;
        }
        hk[c] = e;
        hp[c] = j;
      } else if (e < hk[0]) { // on an equal key the top's lower position wins
        siftDown(hk, hp, n, e, j);
      }
    }
    System.arraycopy(hp, 0, out, from, n);
    if (n <= 32) {
      NodeSampler.insertionSort(out, from, from + n);
    } else {
      Arrays.sort(out, from, from + n);
    }
    return n;
  }

  /**
   * Replaces the top of the max-heap {@code hk[0 .. n)} with {@code (e, j)} and restores the heap,
   * ordering by key, then by position (the higher position is the larger on equal keys).
   */
  /**
   * Samples the in-neighbors of {@code v} at hop {@code hop} of the batch keyed {@code batchKey}
   * into {@code out[from ..]}, ascending by position: exactly what a weighted {@link
   * NeighborSampler} does for one destination, for samplers that see one graph partition at a time
   * ({@code weights} by the positions of {@code g}).
   *
   * @param out room for {@link #capacity}{@code (degree of v, fanout)} entries from {@code from}
   * @return the number of neighbors written
   */
  public int sampleNeighbors(
      CsrGraph g,
      EdgeWeights weights,
      long batchKey,
      int hop,
      int v,
      int fanout,
      int[] out,
      int from) {
    long s = g.rowStart(v);
    int degree = NodeSampler.rowDegree(g, v, s);
    int k = choose(SampleHash.nodeKey(batchKey, hop, v), weights, s, degree, fanout, out, from);
    for (int j = from; j < from + k; j++) {
      out[j] = g.neighbor(s + out[j]);
    }
    return k;
  }

  /**
   * {@link #sampleNeighbors} for each of {@code nodes[0 .. count)} in turn: writes node {@code i}'s
   * number of neighbors into {@code counts[i]} and returns all their neighbors, node after node
   * (exactly {@code sum(counts)} entries). What a sampler of a whole block of destinations calls.
   */
  public int[] sampleRows(
      CsrGraph g,
      EdgeWeights weights,
      long batchKey,
      int hop,
      int[] nodes,
      int count,
      int fanout,
      int[] counts) {
    long room = 0;
    for (int i = 0; i < count; i++) {
      int v = nodes[i];
      room += capacity(g.rowEnd(v) - g.rowStart(v), fanout);
    }
    if (room > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("hop " + hop + " samples more than 2^31 edges");
    }
    int[] out = new int[(int) room];
    int o = 0;
    for (int i = 0; i < count; i++) {
      counts[i] = sampleNeighbors(g, weights, batchKey, hop, nodes[i], fanout, out, o);
      o += counts[i];
    }
    return o == out.length ? out : Arrays.copyOf(out, o);
  }

  private static void siftDown(double[] hk, int[] hp, int n, double e, int j) {
    int c = 0;
    while (true) {
      int l = 2 * c + 1;
      if (l >= n) {
        break;
      }
      int r = l + 1;
      int big = r < n && greater(hk[r], hp[r], hk[l], hp[l]) ? r : l;
      if (!greater(hk[big], hp[big], e, j)) {
        break;
      }
      hk[c] = hk[big];
      hp[c] = hp[big];
      c = big;
    }
    hk[c] = e;
    hp[c] = j;
  }

  private static boolean greater(double ka, int pa, double kb, int pb) {
    return ka > kb || (ka == kb && pa > pb);
  }
}
