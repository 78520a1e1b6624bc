package io.fanout.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NodeSamplerTest {

  /** Chi-square of per-position pick counts over {@code trials} keys, with degree-1 dof. */
  private static double chiSquare(int degree, int k, int trials) {
    NodeSampler s = new NodeSampler();
    long[] counts = new long[degree];
    int[] out = new int[k];
    for (int t = 0; t < trials; t++) {
      long key = SampleHash.nodeKey(SampleHash.batchKey(SampleHash.epochKey(1, 0), t), 1, 77);
      s.choose(key, degree, k, out, 0);
      for (int j = 0; j < k; j++) {
        if (j > 0) {
          assertThat(out[j]).isGreaterThan(out[j - 1]);
        }
        assertThat(out[j]).isBetween(0, degree - 1);
        counts[out[j]]++;
      }
    }
    double expected = (double) trials * k / degree;
    double chi = 0;
    for (long c : counts) {
      chi += (c - expected) * (c - expected) / expected;
    }
    return chi;
  }

  @Test
  void picksAreUniformSmallSample() {
    // 19 degrees of freedom: the 0.999 quantile is 43.8.
    assertThat(chiSquare(20, 5, 20_000)).isLessThan(43.8);
  }

  @Test
  void picksAreUniformLargeSample() {
    // 99 degrees of freedom: the 0.999 quantile is 148.2.
    assertThat(chiSquare(100, 40, 5_000)).isLessThan(148.2);
  }

  @Test
  void pairsAreUniform() {
    // All C(6,2) = 15 pairs of a 2-of-6 draw equally likely: 14 dof, 0.999 quantile 36.1.
    NodeSampler s = new NodeSampler();
    long[] counts = new long[36];
    int[] out = new int[2];
    int trials = 30_000;
    for (int t = 0; t < trials; t++) {
      s.choose(SampleHash.draw(42, t), 6, 2, out, 0);
      counts[out[0] * 6 + out[1]]++;
    }
    double expected = trials / 15.0;
    double chi = 0;
    for (int a = 0; a < 6; a++) {
      for (int b = a + 1; b < 6; b++) {
        double c = counts[a * 6 + b];
        chi += (c - expected) * (c - expected) / expected;
      }
    }
    assertThat(chi).isLessThan(36.1);
  }

  @Test
  void boundedMatchesExactArithmetic() {
    SplittableRandom r = new SplittableRandom(9);
    for (int i = 0; i < 10_000; i++) {
      long w = r.nextLong();
      int bound = 1 + r.nextInt(Integer.MAX_VALUE);
      assertThat(SampleHash.bounded(w, bound))
          .isEqualTo(ReferenceSampler.referenceBounded(w, bound));
    }
  }

  @Test
  void dedupMapMatchesHashMapAcrossGrowthAndClears() {
    DedupMap m = new DedupMap(4);
    SplittableRandom r = new SplittableRandom(3);
    for (int round = 0; round < 20; round++) {
      m.clear();
      Map<Integer, Integer> ref = new HashMap<>();
      int n = r.nextInt(5000);
      for (int i = 0; i < n; i++) {
        int k = r.nextInt(3000) * 7919;
        Integer prev = ref.putIfAbsent(k, i);
        assertThat(m.putIfAbsent(k, i)).isEqualTo(prev == null ? -1 : prev);
      }
      assertThat(m.size()).isEqualTo(ref.size());
      for (Map.Entry<Integer, Integer> e : ref.entrySet()) {
        assertThat(m.get(e.getKey())).isEqualTo(e.getValue());
      }
      assertThat(m.get(-5)).isEqualTo(-1);
    }
  }
}
