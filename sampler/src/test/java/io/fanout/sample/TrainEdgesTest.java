package io.fanout.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.ArrayCsrGraph;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link TrainEdges}' counts against the edges it builds. */
class TrainEdgesTest {

  /** Sorted rows with repeated neighbors and self-loops, some rows empty. */
  static ArrayCsrGraph withRepeatsAndSelfLoops(int n, long seed) {
    Random r = new Random(seed);
    long[] ptr = new long[n + 1];
    int[][] rows = new int[n][];
    for (int v = 0; v < n; v++) {
      int d = r.nextInt(4) == 0 ? 0 : r.nextInt(12);
      rows[v] = new int[d];
      for (int i = 0; i < d; i++) {
        int pick = r.nextInt(10);
        rows[v][i] = pick == 0 ? v : pick == 1 && i > 0 ? rows[v][i - 1] : r.nextInt(n);
      }
      Arrays.sort(rows[v]);
      ptr[v + 1] = ptr[v] + d;
    }
    int[] idx = new int[(int) ptr[n]];
    for (int v = 0; v < n; v++) {
      System.arraycopy(rows[v], 0, idx, (int) ptr[v], rows[v].length);
    }
    return new ArrayCsrGraph(ptr, idx);
  }

  @Test
  void theCountsAreTheSizesOfTheBuiltEdges() {
    for (long seed = 1; seed <= 5; seed++) {
      ArrayCsrGraph g = withRepeatsAndSelfLoops(200, seed);
      long entries = g.numEdges();
      for (boolean flag : new boolean[] {true, false}) {
        int built = TrainEdges.of(g, flag).size();
        assertThat(TrainEdges.count(g, flag)).isEqualTo(built).isLessThan(entries);
        int relation = TrainEdges.ofRelation(g, flag).size();
        assertThat(TrainEdges.countOfRelation(g, flag)).isEqualTo(relation);
      }
      // between two types nothing but repeats is left out
      assertThat(TrainEdges.countOfRelation(g, false))
          .isGreaterThan(TrainEdges.countOfRelation(g, true));
    }
  }
}
