package io.fanout.sample;

import io.fanout.graph.CsrGraph;
import java.io.Serializable;
import java.util.Locale;
import java.util.function.IntUnaryOperator;

/**
 * Draws the negative destinations of a link-prediction batch, counter-hashed so a batch's negatives
 * do not depend on threads or tasks: {@code uniform} (any vertex), {@code degree} (probability
 * proportional to in-degree^0.75, by binary search over the cumulative weights) or {@code in-batch}
 * (the destinations of the batch's other positives).
 */
public final class NegativeSampler implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The negative modes, as spelled on the command line. */
  public static final String[] MODES = {"uniform", "degree", "in-batch"};

  private final String mode;
  private final int vertices;
  private final double[] cumulative;

  private NegativeSampler(String mode, int vertices, double[] cumulative) {
    this.mode = mode;
    this.vertices = vertices;
    this.cumulative = cumulative;
  }

  /**
   * @throws IllegalArgumentException for a mode not in {@link #MODES}
   */
  public static NegativeSampler of(String mode, CsrGraph graph) {
    return of(mode, graph.numVertices(), v -> (int) (graph.rowEnd(v) - graph.rowStart(v)));
  }

  /**
   * The sampler over {@code n} vertices of in-degrees {@code inDegree} (read in the degree mode
   * only), as {@link #of(String, CsrGraph)} builds it from the graph's rows: the partitioned
   * sampler passes the degrees gathered from every store partition.
   *
   * @throws IllegalArgumentException for a mode not in {@link #MODES}
   */
  public static NegativeSampler of(String mode, int n, IntUnaryOperator inDegree) {
    String m = mode.toLowerCase(Locale.ROOT);
    switch (m) {
      case "uniform", "in-batch" -> {
        return new NegativeSampler(m, n, null);
      }
      case "degree" -> {
        double[] cum = new double[n];
        double total = 0;
        for (int v = 0; v < n; v++) {
          total += Math.pow(inDegree.applyAsInt(v), 0.75);
          cum[v] = total;
        }
        if (total == 0) { // no edges: every vertex alike
          return new NegativeSampler("uniform", n, null);
        }
        return new NegativeSampler(m, n, cum);
      }
      default ->
          throw new IllegalArgumentException(
              "unknown negative mode '" + mode + "'; expected one of " + String.join(", ", MODES));
    }
  }

  public boolean inBatch() {
    return mode.equals("in-batch");
  }

  /** A vertex drawn from the random word {@code word} (uniform and degree modes). */
  public int draw(long word) {
    if (cumulative == null) {
      return SampleHash.bounded(word, vertices);
    }
    double total = cumulative[cumulative.length - 1];
    double u = (word >>> 11) * 0x1p-53 * total;
    int lo = 0;
    int hi = cumulative.length - 1;
    while (lo < hi) { // first v with cumulative[v] > u
      int mid = (lo + hi) >>> 1;
      if (cumulative[mid] > u) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }
}
