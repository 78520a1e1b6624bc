package io.fanout.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.EdgeWeights;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link WeightedNodeSampler} against exact probabilities of sampling without replacement
 * proportional to weight. The draws are keyed by a fixed sequence, so every test is deterministic;
 * the chi-square thresholds are the p = 1e-6 quantiles, so a correct sampler is far from them.
 */
class WeightedNodeSamplerTest {
  private static final int TRIALS = 60_000;

  /** Weights read from {@code w} at positions offset by {@code base} (rows need not start at 0). */
  private static EdgeWeights weights(long base, float... w) {
    return p -> w[(int) (p - base)];
  }

  private static long key(int t) {
    return SampleHash.nodeKey(SampleHash.batchKey(SampleHash.epochKey(3, 0), t), 1, 5);
  }

  /** Exact probability of each k-subset (bit mask) of successive sampling proportional to w. */
  static Map<Integer, Double> exactSubsets(float[] w, int k) {
    Map<Integer, Double> out = new HashMap<>();
    enumerate(w, k, 0, 1.0, out);
    return out;
  }

  private static void enumerate(float[] w, int k, int mask, double p, Map<Integer, Double> out) {
    if (Integer.bitCount(mask) == k) {
      out.merge(mask, p, Double::sum);
      return;
    }
    double left = 0;
    for (int i = 0; i < w.length; i++) {
      if ((mask & (1 << i)) == 0) {
        left += w[i];
      }
    }
    for (int i = 0; i < w.length; i++) {
      if ((mask & (1 << i)) == 0 && w[i] > 0) {
        enumerate(w, k, mask | (1 << i), p * w[i] / left, out);
      }
    }
  }

  /**
   * Chi-square of the sampled k-subsets against their exact probabilities; checks inclusion too.
   */
  private static double subsetChiSquare(float[] w, int k) {
    WeightedNodeSampler s = new WeightedNodeSampler();
    Map<Integer, Double> exact = exactSubsets(w, k);
    Map<Integer, Integer> seen = new HashMap<>();
    long[] included = new long[w.length];
    int[] out = new int[k + 2];
    for (int t = 0; t < TRIALS; t++) {
      int n = s.choose(key(t), weights(100, w), 100, w.length, k, out, 1);
      assertThat(n).isEqualTo(k);
      int mask = 0;
      for (int j = 1; j <= n; j++) {
        if (j > 1) {
          assertThat(out[j]).isGreaterThan(out[j - 1]);
        }
        mask |= 1 << out[j];
        included[out[j]]++;
      }
      seen.merge(mask, 1, Integer::sum);
    }
    assertThat(exact.keySet()).containsAll(seen.keySet());
    double chi = 0;
    for (Map.Entry<Integer, Double> e : exact.entrySet()) {
      double expected = TRIALS * e.getValue();
      double d = seen.getOrDefault(e.getKey(), 0) - expected;
      chi += d * d / expected;
    }
    // Inclusion frequencies within 5 standard deviations of the exact inclusion probabilities.
    for (int i = 0; i < w.length; i++) {
      double pi = 0;
      for (Map.Entry<Integer, Double> e : exact.entrySet()) {
        if ((e.getKey() & (1 << i)) != 0) {
          pi += e.getValue();
        }
      }
      double sd = Math.sqrt(TRIALS * pi * (1 - pi));
      assertThat((double) included[i]).as("position %d", i).isCloseTo(TRIALS * pi, within(sd));
    }
    return chi;
  }

  private static org.assertj.core.data.Offset<Double> within(double sd) {
    return org.assertj.core.data.Offset.offset(5 * sd + 1e-9);
  }

  @Test
  void twoOfSixMatchTheExactSubsetProbabilities() {
    // 5 positive weights: C(5,2) = 10 subsets, 9 dof; p = 1e-6 quantile 44.8. Position 4 weighs 0.
    assertThat(subsetChiSquare(new float[] {1, 2, 3, 4, 0, 5}, 2)).isLessThan(44.8);
  }

  @Test
  void threeOfFiveSkewedMatchTheExactSubsetProbabilities() {
    // C(5,3) = 10 subsets, 9 dof; weights spanning a factor of 16.
    assertThat(subsetChiSquare(new float[] {0.5f, 1, 2, 4, 8}, 3)).isLessThan(44.8);
  }

  @Test
  void aBiasedSamplerFailsTheTest() {
    // The test can fail: subsets drawn as if the weights were uniform are far above the quantile.
    float[] w = {1, 2, 3, 4, 0, 5};
    Map<Integer, Double> exact = exactSubsets(w, 2);
    Map<Integer, Double> uniform = exactSubsets(new float[] {1, 1, 1, 1, 0, 1}, 2);
    double chi = 0;
    for (Map.Entry<Integer, Double> e : exact.entrySet()) {
      double expected = TRIALS * e.getValue();
      double d = TRIALS * uniform.get(e.getKey()) - expected;
      chi += d * d / expected;
    }
    assertThat(chi).isGreaterThan(1000);
  }

  @Test
  void uniformWeightsMatchTheUniformSampler() {
    // Equal weights: the same inclusion frequencies as NodeSampler's uniform draws. Homogeneity
    // chi-square of the two count vectors, 19 dof, p = 1e-6 quantile 63.7; and each near k/d.
    int degree = 20;
    int k = 5;
    float[] ones = new float[degree];
    java.util.Arrays.fill(ones, 2.5f);
    WeightedNodeSampler ws = new WeightedNodeSampler();
    NodeSampler us = new NodeSampler();
    long[] a = new long[degree];
    long[] b = new long[degree];
    int[] out = new int[k];
    int trials = 20_000;
    for (int t = 0; t < trials; t++) {
      assertThat(ws.choose(key(t), weights(0, ones), 0, degree, k, out, 0)).isEqualTo(k);
      for (int j = 0; j < k; j++) {
        a[out[j]]++;
      }
      us.choose(key(t), degree, k, out, 0);
      for (int j = 0; j < k; j++) {
        b[out[j]]++;
      }
    }
    double chi = 0;
    double expected = (double) trials * k / degree;
    double sd = Math.sqrt(trials * 0.25 * 0.75);
    for (int i = 0; i < degree; i++) {
      chi += (double) (a[i] - b[i]) * (a[i] - b[i]) / (a[i] + b[i]);
      assertThat((double) a[i]).isCloseTo(expected, within(sd));
    }
    assertThat(chi).isLessThan(63.7);
  }

  @Test
  void zeroWeightsAreNeverSampledAndFewPositiveGiveAllOfThem() {
    WeightedNodeSampler s = new WeightedNodeSampler();
    float[] w = {0, 3, 0, 0, 1e-30f, 0, 7, 0};
    int[] out = new int[8];
    for (int t = 0; t < 2_000; t++) {
      // fanout 3 of 8 entries, 3 positive: all of them, ascending
      assertThat(s.choose(key(t), weights(0, w), 0, w.length, 3, out, 0)).isEqualTo(3);
      assertThat(java.util.Arrays.copyOf(out, 3)).containsExactly(1, 4, 6);
      // fanout 2: never a zero-weight position
      int n = s.choose(key(t), weights(0, w), 0, w.length, 2, out, 0);
      assertThat(n).isEqualTo(2);
      assertThat(out[0]).isIn(1, 4, 6);
      assertThat(out[1]).isIn(4, 6);
    }
    // fanout -1: all positive ones; all-zero rows give nothing
    assertThat(s.choose(key(0), weights(0, w), 0, w.length, -1, out, 0)).isEqualTo(3);
    assertThat(s.choose(key(0), weights(0, new float[5]), 0, 5, 2, out, 0)).isZero();
  }

  @Test
  void largeRowsMatchAFullSortOfTheExponentialKeys() {
    // The heap and the log-free skip of hopeless keys give exactly the k smallest keys.
    java.util.SplittableRandom r = new java.util.SplittableRandom(4);
    WeightedNodeSampler s = new WeightedNodeSampler();
    for (int t = 0; t < 200; t++) {
      int degree = 1 + r.nextInt(3_000);
      int k = 1 + r.nextInt(Math.min(degree, 60));
      float[] w = new float[degree];
      for (int j = 0; j < degree; j++) {
        w[j] = r.nextInt(5) == 0 ? 0f : (float) Math.exp(r.nextDouble(-8, 8));
      }
      long key = key(t);
      java.util.List<double[]> keys = new java.util.ArrayList<>();
      for (int j = 0; j < degree; j++) {
        if (w[j] > 0) {
          double u = ((SampleHash.draw(key, j) >>> 11) + 0.5) * 0x1.0p-53;
          keys.add(new double[] {-Math.log(u) / w[j], j});
        }
      }
      keys.sort((x, y) -> x[0] != y[0] ? Double.compare(x[0], y[0]) : Double.compare(x[1], y[1]));
      int want = Math.min(k, keys.size());
      int[] expected = new int[want];
      for (int i = 0; i < want; i++) {
        expected[i] = (int) keys.get(i)[1];
      }
      java.util.Arrays.sort(expected);
      int[] out = new int[k];
      int n = s.choose(key, weights(0, w), 0, degree, k, out, 0);
      assertThat(java.util.Arrays.copyOf(out, n)).isEqualTo(expected);
    }
  }

  @Test
  void drawsAreAFunctionOfTheKeyAndTheWeightsOnly() {
    float[] w = new float[300];
    for (int i = 0; i < w.length; i++) {
      w[i] = (i * 37 % 11) / 3f;
    }
    int[] a = new int[100];
    int[] b = new int[140];
    WeightedNodeSampler first = new WeightedNodeSampler();
    for (int t = 0; t < 50; t++) {
      int n = first.choose(key(t), weights(1L << 33, w), 1L << 33, w.length, 100, a, 0);
      // a fresh instance, another offset, after a draw that grew the scratch
      WeightedNodeSampler other = new WeightedNodeSampler();
      other.choose(key(t + 1), weights(0, w), 0, w.length, 120, b, 0);
      int m = other.choose(key(t), weights(0, w), 0, w.length, 100, b, 40);
      assertThat(m).isEqualTo(n).isEqualTo(100);
      assertThat(java.util.Arrays.copyOfRange(b, 40, 140)).isEqualTo(a);
    }
  }
}
