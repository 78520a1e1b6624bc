package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NeighborSkewTest {
  /** A graph of {@code n} vertices whose rows list {@code degree} random neighbors each. */
  private static ArrayCsrGraph random(long seed, int n, int degree, boolean skewed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    long[] indptr = new long[n + 1];
    int[] indices = new int[n * degree];
    for (int v = 0; v < n; v++) {
      for (int i = 0; i < degree; i++) {
        double r = rnd.nextDouble();
        indices[v * degree + i] = (int) ((skewed ? r * r * r : r) * n);
      }
      Arrays.sort(indices, v * degree, (v + 1) * degree);
      indptr[v + 1] = (long) (v + 1) * degree;
    }
    return new ArrayCsrGraph(indptr, indices);
  }

  /** The share by counting each vertex's mentions one edge at a time and ranking them. */
  private static double reference(ArrayCsrGraph g, double fraction) {
    int n = g.numVertices();
    Integer[] byCount = new Integer[n];
    long[] count = new long[n];
    for (long p = 0; p < g.numEdges(); p++) {
      count[g.neighbor(p)]++;
    }
    for (int v = 0; v < n; v++) {
      byCount[v] = v;
    }
    Arrays.sort(byCount, (a, b) -> Long.compare(count[b], count[a]));
    long top = 0;
    for (int i = 0; i < (int) Math.ceil(fraction * n); i++) {
      top += count[byCount[i]];
    }
    return (double) top / g.numEdges();
  }

  @Test
  void matchesTheReferenceOnSmallAndMediumGraphs() {
    for (int n : new int[] {3, 50, 2000}) {
      for (boolean skewed : new boolean[] {false, true}) {
        ArrayCsrGraph g = random(n, n, 7, skewed);
        for (double f : new double[] {0.01, 0.05, 0.2, 1.0}) {
          assertThat(NeighborSkew.hotShare(g, f))
              .as("n %d, skewed %s, fraction %s", n, skewed, f)
              .isCloseTo(reference(g, f), within(1e-12));
        }
        assertThat(NeighborSkew.hotShare(g, 1.0)).isEqualTo(1.0);
      }
    }
    // the skewed graph concentrates its neighbors more than the uniform one
    assertThat(NeighborSkew.hotShare(random(5, 2000, 7, true), 0.05))
        .isGreaterThan(NeighborSkew.hotShare(random(5, 2000, 7, false), 0.05) + 0.2);
  }

  @Test
  void aStarsHubIsEveryNeighbor() {
    int n = 40;
    long[] indptr = new long[n + 1];
    int[] indices = new int[n - 1];
    for (int v = 1; v < n; v++) {
      indptr[v + 1] = v;
    }
    ArrayCsrGraph star = new ArrayCsrGraph(indptr, indices);
    assertThat(NeighborSkew.hotShare(star, 0.01)).isEqualTo(1.0);
  }

  @Test
  void sizesZeroAndOneAndBadFractions() {
    assertThat(NeighborSkew.hotShare(new ArrayCsrGraph(new long[] {0}, new int[0]), 0.05)).isZero();
    assertThat(NeighborSkew.hotShare(new ArrayCsrGraph(new long[] {0, 0}, new int[0]), 0.05))
        .isZero();
    assertThat(NeighborSkew.hotShare(new ArrayCsrGraph(new long[] {0, 1}, new int[] {0}), 0.05))
        .isEqualTo(1.0);
    ArrayCsrGraph g = random(1, 10, 2, false);
    for (double bad : new double[] {0, -0.1, 1.5, Double.NaN}) {
      assertThatThrownBy(() -> NeighborSkew.hotShare(g, bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("expected in (0, 1]");
    }
  }
}
