package io.fanout.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraph;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link TypedNeighborSampler} with weights on some relations: a weighted relation's draws follow
 * the exact probabilities of sampling without replacement proportional to weight (chi-square over
 * the drawn subsets, p = 1e-6 quantile, as {@link WeightedNodeSamplerTest}); a relation without
 * weights draws as the uniform sampler does; and a sampler not asked to weigh ignores the weights.
 */
class TypedWeightedSamplerTest {
  private static final int TRIALS = 40_000;

  /** In-neighbor weights of paper 0 over {@code writes}, by author id (author 4 weighs 0). */
  private static final float[] WRITES = {1, 2, 3, 4, 0, 5};

  /**
   * Paper 0 has authors 0..5 over {@code writes} (weighted by {@link #WRITES} with {@code
   * weighted}) and terms 0..4 over {@code has_term} (no weights); paper 1 has author 2 (weight 7)
   * and term 3 only.
   */
  private static TypedGraph graph(boolean weighted) {
    float[] writes = java.util.Arrays.copyOf(WRITES, 7);
    writes[6] = 7;
    return ArrayTypedGraph.builder()
        .type("paper", 2, 0, null, new int[] {0, 1}, null)
        .type("author", 6, 0, null, null, null)
        .type("term", 5, 0, null, null, null)
        .relation(
            "writes",
            "author",
            "paper",
            new int[] {5, 4, 3, 2, 1, 0, 2},
            paper(7),
            weighted ? reversed(writes) : null)
        .relation("has_term", "term", "paper", new int[] {0, 1, 2, 3, 4, 3}, paper(6))
        .build();
  }

  /** {@code n} edges into paper 0 but the last, into paper 1. */
  private static int[] paper(int n) {
    int[] d = new int[n];
    d[n - 1] = 1;
    return d;
  }

  /**
   * The first six weights backwards (the edges list paper 0's authors backwards), then the rest.
   */
  private static float[] reversed(float[] w) {
    float[] out = w.clone();
    for (int i = 0; i < 6; i++) {
      out[i] = w[5 - i];
    }
    return out;
  }

  /** The source vertices block {@code (1, r)} of {@code b} picked for its seed {@code i}. */
  private static int[] picked(TypedMiniBatch b, int r, int srcType, int i) {
    int[] ptr = b.indptr(1, r);
    int[] out = new int[ptr[i + 1] - ptr[i]];
    for (int j = 0; j < out.length; j++) {
      out[j] = b.nodes(srcType)[b.indices(1, r)[ptr[i] + j]];
    }
    return out;
  }

  @Test
  void weightedRelationFollowsTheWeightsAndTheOtherDrawsUniformly() {
    TypedGraph g = graph(true);
    int[][] f = TypedFanouts.parse("2", g.schema());
    TypedNeighborSampler.Worker weighted = new TypedNeighborSampler(g, 0, f, 5, true).newWorker();
    TypedNeighborSampler.Worker uniform = new TypedNeighborSampler(g, 0, f, 5).newWorker();
    Map<Integer, Double> exact = WeightedNodeSamplerTest.exactSubsets(WRITES, 2);
    Map<Integer, Integer> seen = new HashMap<>();
    long[] terms = new long[5];
    int[] seeds = {0, 1};
    boolean differs = false;
    for (int t = 0; t < TRIALS; t++) {
      TypedMiniBatch b = weighted.sample(0, t, seeds, 0, 2);
      TypedMiniBatch u = uniform.sample(0, t, seeds, 0, 2);
      int[] authors = picked(b, 0, 1, 0);
      assertThat(authors).hasSize(2);
      assertThat(authors[0]).isLessThan(authors[1]);
      seen.merge((1 << authors[0]) | (1 << authors[1]), 1, Integer::sum);
      differs |= !java.util.Arrays.equals(authors, picked(u, 0, 1, 0));
      assertThat(picked(b, 0, 1, 1)).containsExactly(2); // fewer positive weights than the fanout
      // the unweighted relation draws exactly what the uniform sampler draws
      int[] got = picked(b, 1, 2, 0);
      assertThat(got).isEqualTo(picked(u, 1, 2, 0));
      for (int v : got) {
        terms[v]++;
      }
    }
    assertThat(exact.keySet()).containsAll(seen.keySet()); // author 4 (weight 0) never drawn
    double chi = 0;
    for (Map.Entry<Integer, Double> e : exact.entrySet()) {
      double expected = TRIALS * e.getValue();
      double d = seen.getOrDefault(e.getKey(), 0) - expected;
      chi += d * d / expected;
    }
    // C(5,2) = 10 subsets, 9 dof: the p = 1e-6 quantile is 44.8
    assertThat(chi).isLessThan(44.8);
    double sd = Math.sqrt(TRIALS * 0.4 * 0.6);
    for (long c : terms) {
      assertThat((double) c).isCloseTo(TRIALS * 0.4, org.assertj.core.data.Offset.offset(5 * sd));
    }
    assertThat(differs).isTrue();
  }

  @Test
  void uniformDrawsIgnoreTheWeights() {
    TypedGraph g = graph(true);
    TypedGraph bare = graph(false);
    int[][] f = TypedFanouts.parse("3,2", g.schema());
    TypedNeighborSampler.Worker a = new TypedNeighborSampler(g, 0, f, 9, false).newWorker();
    TypedNeighborSampler.Worker b = new TypedNeighborSampler(bare, 0, f, 9, true).newWorker();
    TypedNeighborSampler.Worker c = new TypedNeighborSampler(bare, 0, f, 9).newWorker();
    int[] seeds = {1, 0};
    for (int t = 0; t < 50; t++) {
      TypedMiniBatch want = c.sample(1, t, seeds, 0, 2);
      for (TypedMiniBatch got :
          new TypedMiniBatch[] {a.sample(1, t, seeds, 0, 2), b.sample(1, t, seeds, 0, 2)}) {
        for (int h = 1; h <= 2; h++) {
          for (int r = 0; r < 2; r++) {
            assertThat(got.indptr(h, r)).isEqualTo(want.indptr(h, r));
            assertThat(got.indices(h, r)).isEqualTo(want.indices(h, r));
          }
        }
      }
    }
  }
}
