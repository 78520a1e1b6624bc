package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MultilevelPartitionerTest {
  /**
   * {@code clusters} groups of {@code size} vertices, each pair inside a group joined with
   * probability 0.2, plus {@code bridges} random edges between groups.
   */
  static MultilevelPartitioner.Graph planted(int clusters, int size, int bridges, long seed) {
    int n = clusters * size;
    SplittableRandom r = new SplittableRandom(seed);
    long[] keys = new long[n * n];
    int m = 0;
    for (int c = 0; c < clusters; c++) {
      for (int i = 0; i < size; i++) {
        for (int j = i + 1; j < size; j++) {
          if (r.nextDouble() < 0.2) {
            int a = c * size + i;
            int b = c * size + j;
            keys[m++] = (long) a << 32 | b;
            keys[m++] = (long) b << 32 | a;
          }
        }
      }
    }
    for (int i = 0; i < bridges; i++) {
      int a = r.nextInt(n);
      int b = r.nextInt(n);
      if (a / size != b / size) {
        keys[m++] = (long) a << 32 | b;
        keys[m++] = (long) b << 32 | a;
      }
    }
    return fromKeys(n, Arrays.copyOf(keys, m));
  }

  static MultilevelPartitioner.Graph fromKeys(int n, long[] keys) {
    Arrays.sort(keys);
    long[] unique = Arrays.stream(keys).distinct().toArray();
    int[] xadj = new int[n + 1];
    int[] adj = new int[unique.length];
    for (int i = 0; i < unique.length; i++) {
      xadj[(int) (unique[i] >>> 32) + 1]++;
      adj[i] = (int) unique[i];
    }
    for (int v = 0; v < n; v++) {
      xadj[v + 1] += xadj[v];
    }
    int[] ew = new int[adj.length];
    Arrays.fill(ew, 1);
    int[] vw = new int[n];
    Arrays.fill(vw, 1);
    return new MultilevelPartitioner.Graph(n, xadj, adj, ew, vw);
  }

  static double cut(MultilevelPartitioner.Graph g, int[] part) {
    long c = 0;
    for (int v = 0; v < g.n(); v++) {
      for (int e = g.xadj()[v]; e < g.xadj()[v + 1]; e++) {
        if (part[g.adj()[e]] != part[v]) {
          c++;
        }
      }
    }
    return (double) c / g.adj().length;
  }

  static int largest(int[] part, int k) {
    int[] size = new int[k];
    for (int p : part) {
      size[p]++;
    }
    return Arrays.stream(size).max().getAsInt();
  }

  @Test
  void findsPlantedClustersWithinTheBalanceBound() {
    MultilevelPartitioner.Graph g = planted(8, 100, 300, 1);
    int[] part = MultilevelPartitioner.partition(g, 8, 1.05, 7);
    // the 300 bridges are about 5% of the edges; hash partitioning would cut 7/8 of them all
    assertThat(cut(g, part)).isLessThan(0.07);
    assertThat(largest(part, 8)).isLessThanOrEqualTo(105);
    assertThat(Arrays.stream(part).min().getAsInt()).isZero();
    assertThat(Arrays.stream(part).max().getAsInt()).isEqualTo(7);
  }

  @Test
  void sameSeedSameAssignment() {
    MultilevelPartitioner.Graph g = planted(6, 70, 200, 2);
    assertThat(MultilevelPartitioner.partition(g, 4, 1.05, 3))
        .isEqualTo(MultilevelPartitioner.partition(g, 4, 1.05, 3));
  }

  @Test
  void aStarIsSplitEvenly() {
    int n = 401;
    long[] keys = new long[2 * (n - 1)];
    for (int v = 1; v < n; v++) {
      keys[2 * v - 2] = (long) v;
      keys[2 * v - 1] = (long) v << 32;
    }
    int[] part = MultilevelPartitioner.partition(fromKeys(n, keys), 4, 1.05, 0);
    assertThat(largest(part, 4)).isLessThanOrEqualTo((int) Math.floor(1.05 * n / 4));
  }

  @Test
  void isolatedVerticesAreBalanced() {
    int[] part = MultilevelPartitioner.partition(fromKeys(1000, new long[0]), 16, 1.05, 0);
    assertThat(largest(part, 16)).isLessThanOrEqualTo((int) Math.floor(1.05 * 1000 / 16));
  }

  @Test
  void refusesZeroParts() {
    assertThatThrownBy(() -> MultilevelPartitioner.partition(planted(1, 10, 0, 0), 0, 1.05, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
