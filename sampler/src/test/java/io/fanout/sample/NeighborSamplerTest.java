package io.fanout.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.ArrayCsrGraph;
import io.fanout.graph.CsrGraph;
import io.fanout.store.StoreLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NeighborSamplerTest {
  private static final int[][] FANOUTS = {{15, 10, 5}, {-1, 3}, {2}, {1, 1, 1, 1}, {40, 2}};

  static void assertSame(MiniBatch a, MiniBatch b) {
    assertThat(b.epoch()).isEqualTo(a.epoch());
    assertThat(b.batch()).isEqualTo(a.batch());
    assertThat(b.layerSizes()).isEqualTo(a.layerSizes());
    assertThat(b.nodes()).isEqualTo(a.nodes());
    assertThat(b.labels()).isEqualTo(a.labels());
    for (int h = 1; h <= a.layers(); h++) {
      assertThat(b.indptr(h)).as("indptr %d", h).isEqualTo(a.indptr(h));
      assertThat(b.indices(h)).as("indices %d", h).isEqualTo(a.indices(h));
    }
  }

  private void checkAgainstReference(int n, int m, boolean dedupe, int batchSize) {
    ArrayCsrGraph g = TestGraphs.random(n, m, 11L * n + m, dedupe);
    TestGraphs.ArrayVertexTable vt = TestGraphs.vertices(n, 5);
    for (int[] fanouts : FANOUTS) {
      NeighborSampler s = new NeighborSampler(g, vt, fanouts, 99);
      NeighborSampler.Worker w = s.newWorker();
      for (int epoch = 0; epoch < 2; epoch++) {
        int[] order = SeedOrder.order(vt, SeedOrder.ALL, 99, epoch);
        int batches = SeedOrder.batches(order.length, batchSize);
        for (int b = 0; b < Math.min(batches, 6); b++) {
          int from = b * batchSize;
          int count = Math.min(batchSize, order.length - from);
          MiniBatch mb = w.sample(epoch, b, order, from, count);
          MiniBatch ref =
              ReferenceSampler.sample(
                  g, vt, fanouts, 99, epoch, b, Arrays.copyOfRange(order, from, from + count));
          assertSame(ref, mb);
          BatchChecks.verify(mb, g, fanouts);
          // Layer h's new nodes are exactly the neighbors first reached at hop h.
          Set<Integer> before = new HashSet<>();
          for (int i = 0; i < mb.layerSize(0); i++) {
            before.add(mb.nodes()[i]);
          }
          assertThat(before).hasSize(count);
          for (int h = 1; h <= mb.layers(); h++) {
            Set<Integer> reached = new HashSet<>(before);
            for (int l : mb.indices(h)) {
              reached.add(mb.nodes()[l]);
            }
            assertThat(reached).hasSize(mb.layerSize(h));
            before = reached;
          }
        }
      }
    }
  }

  @Test
  void emptyGraph() {
    checkAgainstReference(0, 0, true, 4);
    ArrayCsrGraph g = TestGraphs.random(0, 0, 1, true);
    NeighborSampler s = new NeighborSampler(g, TestGraphs.vertices(0, 1), new int[] {3}, 1);
    MiniBatch mb = s.newWorker().sample(0, 0, new int[0], 0, 0);
    assertThat(mb.nodes()).isEmpty();
    assertThat(mb.layerSizes()).containsExactly(0, 0);
    assertThat(SeedOrder.order(TestGraphs.vertices(0, 1), SeedOrder.ALL, 1, 0)).isEmpty();
  }

  @Test
  void singleVertexWithAndWithoutSelfLoop() {
    checkAgainstReference(1, 0, true, 4);
    ArrayCsrGraph loop = new ArrayCsrGraph(new long[] {0, 1}, new int[] {0});
    NeighborSampler s = new NeighborSampler(loop, TestGraphs.vertices(1, 2), new int[] {5, 5}, 3);
    MiniBatch mb = s.newWorker().sample(0, 0, new int[] {0}, 0, 1);
    assertThat(mb.nodes()).containsExactly(0);
    assertThat(mb.layerSizes()).containsExactly(1, 1, 1);
    assertThat(mb.indices(1)).containsExactly(0);
    assertThat(mb.indices(2)).containsExactly(0);
  }

  @Test
  void smallGraphsMatchTheReference() {
    checkAgainstReference(12, 40, true, 5);
    checkAgainstReference(12, 40, false, 3);
    checkAgainstReference(300, 3000, true, 64);
    checkAgainstReference(300, 3000, false, 7);
  }

  @Test
  void mediumGraphMatchesTheReference() {
    checkAgainstReference(20_000, 300_000, true, 256);
    checkAgainstReference(20_000, 300_000, false, 100);
  }

  @Test
  void hubsUseTheLargeSamplePath() {
    // Fanout 50 > the linear-scan limit on rows of hundreds: exercises the hashed membership set.
    checkAgainstReference(2_000, 200_000, true, 32);
    ArrayCsrGraph g = TestGraphs.random(2_000, 200_000, 3, true);
    NeighborSampler s = new NeighborSampler(g, TestGraphs.vertices(2_000, 1), new int[] {50}, 5);
    int[] order = SeedOrder.order(TestGraphs.vertices(2_000, 1), SeedOrder.ALL, 5, 0);
    MiniBatch mb = s.newWorker().sample(0, 0, order, 0, 64);
    BatchChecks.verify(mb, g, new int[] {50});
    for (int i = 0; i < 64; i++) {
      assertThat(mb.indptr(1)[i + 1] - mb.indptr(1)[i])
          .isEqualTo((int) Math.min(50, g.degree(order[i])));
    }
  }

  @Test
  void outputDoesNotDependOnThreads() {
    ArrayCsrGraph g = TestGraphs.random(5_000, 60_000, 8, false);
    TestGraphs.ArrayVertexTable vt = TestGraphs.vertices(5_000, 8);
    NeighborSampler s = new NeighborSampler(g, vt, new int[] {15, 10, 5}, 1234);
    int[] order = SeedOrder.order(vt, StoreLayout.SPLIT_TRAIN, 1234, 3);
    int batches = SeedOrder.batches(order.length, 50);
    List<MiniBatch> one = drain(new BatchStream(s, 3, order, 50, 0, batches, 1, 2));
    List<MiniBatch> four = drain(new BatchStream(s, 3, order, 50, 0, batches, 4, 3));
    List<MiniBatch> tail = drain(new BatchStream(s, 3, order, 50, 5, batches, 2, 1));
    assertThat(one).hasSize(batches);
    assertThat(four).hasSize(batches);
    for (int b = 0; b < batches; b++) {
      assertThat(one.get(b).batch()).isEqualTo(b);
      assertSame(one.get(b), four.get(b));
      if (b >= 5) {
        assertSame(one.get(b), tail.get(b - 5));
      }
    }
    // Every seed of the split appears exactly once as a seed over the epoch.
    Set<Integer> seen = new HashSet<>();
    for (MiniBatch mb : one) {
      for (int i = 0; i < mb.numSeeds(); i++) {
        assertThat(seen.add(mb.nodes()[i])).isTrue();
        assertThat(vt.split(mb.nodes()[i])).isEqualTo(StoreLayout.SPLIT_TRAIN);
        assertThat(mb.labels()[i]).isEqualTo(vt.label(mb.nodes()[i]));
      }
    }
    assertThat(seen).hasSize(order.length);
  }

  /** A weight in [0.01, 10) per edge of {@code g}, a quarter of them 0 when {@code someZero}. */
  private static float[] weights(ArrayCsrGraph g, long seed, boolean someZero) {
    float[] w = new float[(int) g.numEdges()];
    java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
    for (int e = 0; e < w.length; e++) {
      boolean zero = someZero && r.nextInt(4) == 0;
      w[e] = zero ? 0f : (float) r.nextDouble(0.01, 10);
    }
    return w;
  }

  /**
   * Left-out rows of the last hop (never seeds) sample nothing; every other row draws the neighbors
   * it draws without them, the upper hops are unchanged, and {@code leftOutEdges} is what the
   * left-out rows draw otherwise. Uniform and weighted; an id past the array is not left out.
   */
  @Test
  void rowsLeftOutOfTheLastHopSampleNothingAndChangeNoOtherRow() {
    ArrayCsrGraph g = TestGraphs.random(3_000, 40_000, 5, false);
    TestGraphs.ArrayVertexTable vt = TestGraphs.vertices(3_000, 5);
    float[] w = weights(g, 5, false);
    int[] fanouts = {6, 4, 3};
    int[] order = SeedOrder.order(vt, SeedOrder.ALL, 5, 0);
    int[] slotOf = new int[2_000]; // vertices 2000.. are past its end
    Arrays.fill(slotOf, -1);
    for (int v = 0; v < slotOf.length; v += 3) {
      slotOf[v] = v / 3;
    }
    for (io.fanout.graph.EdgeWeights ew :
        new io.fanout.graph.EdgeWeights[] {null, p -> w[(int) p]}) {
      NeighborSampler s = new NeighborSampler(g, vt, ew, fanouts, 21);
      NeighborSampler.Worker full = s.newWorker();
      NeighborSampler.Worker some = s.newWorker().leaveOutInLastHop(slotOf);
      for (int b = 0; b < 4; b++) {
        MiniBatch a = full.sample(0, b, order, b * 64, 64);
        MiniBatch c = some.sample(0, b, order, b * 64, 64);
        int last = fanouts.length;
        for (int h = 1; h < last; h++) {
          assertThat(c.indices(h)).isEqualTo(a.indices(h));
        }
        int dst = a.layerSize(last - 1);
        assertThat(c.layerSize(last - 1)).isEqualTo(dst);
        int[] pa = a.indptr(last);
        int[] pc = c.indptr(last);
        long left = 0;
        int leftRows = 0;
        for (int i = 0; i < dst; i++) {
          int v = a.nodes()[i];
          boolean out = i >= a.numSeeds() && v < slotOf.length && slotOf[v] >= 0;
          int[] ra = new int[pa[i + 1] - pa[i]];
          for (int p = pa[i]; p < pa[i + 1]; p++) {
            ra[p - pa[i]] = a.nodes()[a.indices(last)[p]];
          }
          int[] rc = new int[pc[i + 1] - pc[i]];
          for (int p = pc[i]; p < pc[i + 1]; p++) {
            rc[p - pc[i]] = c.nodes()[c.indices(last)[p]];
          }
          if (out) {
            assertThat(rc).isEmpty();
            left += ra.length;
            leftRows++;
          } else {
            assertThat(rc).as("row %d", i).isEqualTo(ra);
          }
        }
        assertThat(leftRows).isPositive();
        assertThat(some.leftOutEdges()).isEqualTo(left).isPositive();
        assertThat(c.nodes().length).isLessThan(a.nodes().length);
        assertThat(full.leftOutEdges()).isZero();
      }
    }
  }

  @Test
  void weightedBatchesAreValidSkipZeroWeightsAndDoNotDependOnThreads() {
    ArrayCsrGraph g = TestGraphs.random(5_000, 60_000, 9, false);
    TestGraphs.ArrayVertexTable vt = TestGraphs.vertices(5_000, 9);
    float[] w = weights(g, 9, true);
    io.fanout.graph.EdgeWeights ew = p -> w[(int) p];
    int[] fanouts = {15, 10, -1};
    NeighborSampler s = new NeighborSampler(g, vt, ew, fanouts, 77);
    int[] order = SeedOrder.order(vt, SeedOrder.ALL, 77, 1);
    int batches = SeedOrder.batches(order.length, 64);
    List<MiniBatch> one = drain(new BatchStream(s, 1, order, 64, 0, batches, 1, 2));
    List<MiniBatch> three = drain(new BatchStream(s, 1, order, 64, 0, batches, 3, 3));
    assertThat(three).hasSize(batches);
    long edges = 0;
    for (int b = 0; b < batches; b++) {
      assertSame(one.get(b), three.get(b));
      // sizes min(fanout, positive-weight entries), every pick a positive-weight edge
      BatchChecks.verify(one.get(b), g, ew, fanouts);
      edges += one.get(b).numEdges();
    }
    // Not the uniform sampler: its batches count zero-weight entries and fail the weighted check.
    NeighborSampler uniform = new NeighborSampler(g, vt, fanouts, 77);
    MiniBatch u = uniform.newWorker().sample(1, 0, order, 0, 64);
    assertThatThrownBy(() -> BatchChecks.verify(u, g, ew, fanouts))
        .isInstanceOf(IllegalStateException.class);
    assertThat(edges).isPositive();
  }

  @Test
  void workerFailureReachesTheConsumer() {
    ArrayCsrGraph g = TestGraphs.random(100, 500, 1, true);
    CsrGraph broken =
        new CsrGraph() {
          @Override
          public int numVertices() {
            return g.numVertices();
          }

          @Override
          public long numEdges() {
            return g.numEdges();
          }

          @Override
          public long rowStart(int v) {
            if (v == 42) {
              throw new IllegalStateException("disk on fire");
            }
            return g.rowStart(v);
          }

          @Override
          public long rowEnd(int v) {
            return g.rowEnd(v);
          }

          @Override
          public int neighbor(long position) {
            return g.neighbor(position);
          }
        };
    NeighborSampler s = new NeighborSampler(broken, TestGraphs.vertices(100, 1), new int[] {3}, 1);
    int[] order = new int[100];
    for (int i = 0; i < 100; i++) {
      order[i] = i;
    }
    BatchStream stream = new BatchStream(s, 0, order, 10, 0, 10, 2, 2);
    assertThatThrownBy(
            () -> {
              while (stream.hasNext()) {
                stream.next();
              }
            })
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("batch 4")
        .hasRootCauseMessage("disk on fire");
    stream.close();
  }

  @Test
  void checksCatchABadBatch() {
    ArrayCsrGraph g = TestGraphs.random(200, 2000, 4, true);
    TestGraphs.ArrayVertexTable vt = TestGraphs.vertices(200, 4);
    int[] order = SeedOrder.order(vt, SeedOrder.ALL, 1, 0);
    MiniBatch mb =
        new NeighborSampler(g, vt, new int[] {4, 4}, 1).newWorker().sample(0, 0, order, 0, 20);
    BatchChecks.verify(mb, g, new int[] {4, 4});
    assertThatThrownBy(() -> BatchChecks.verify(mb, g, new int[] {5, 4}))
        .hasMessageContaining("samples");
    int[] ix = mb.indices(2);
    int[] nodes = mb.nodes();
    // Point one edge at a node that is not an in-neighbor.
    for (int e = 0; e < ix.length; e++) {
      int old = ix[e];
      for (int l = 0; l < nodes.length; l++) {
        ix[e] = l;
        try {
          BatchChecks.verify(mb, g, new int[] {4, 4});
        } catch (IllegalStateException expected) {
          assertThat(expected).hasMessageContaining("block 2");
          return;
        }
      }
      ix[e] = old;
    }
    throw new AssertionError("no corruption was detected");
  }

  @Test
  void seedOrderIsADeterministicPermutationPerEpoch() {
    TestGraphs.ArrayVertexTable vt = TestGraphs.vertices(1000, 3);
    int[] e0 = SeedOrder.order(vt, StoreLayout.SPLIT_VAL, 7, 0);
    int[] e0again = SeedOrder.order(vt, StoreLayout.SPLIT_VAL, 7, 0);
    int[] e1 = SeedOrder.order(vt, StoreLayout.SPLIT_VAL, 7, 1);
    int[] otherSeed = SeedOrder.order(vt, StoreLayout.SPLIT_VAL, 8, 0);
    assertThat(e0).isEqualTo(e0again);
    assertThat(e1).isNotEqualTo(e0);
    assertThat(otherSeed).isNotEqualTo(e0);
    int[] a = e0.clone();
    int[] b = e1.clone();
    Arrays.sort(a);
    Arrays.sort(b);
    assertThat(a).isEqualTo(b);
    List<Integer> expected = new ArrayList<>();
    for (int v = 0; v < 1000; v++) {
      if (vt.split(v) == StoreLayout.SPLIT_VAL) {
        expected.add(v);
      }
    }
    assertThat(a).containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());
    assertThat(SeedOrder.order(vt, SeedOrder.ALL, 7, 0)).hasSize(1000);
  }

  @Test
  void seedListOrderIsTheSplitOrder() {
    for (int n : new int[] {0, 1, 7, 1000}) {
      TestGraphs.ArrayVertexTable vt = TestGraphs.vertices(n, 3);
      for (int epoch = 0; epoch < 3; epoch++) {
        int[] split = SeedOrder.order(vt, StoreLayout.SPLIT_TRAIN, 11, epoch);
        int[] sorted = split.clone();
        Arrays.sort(sorted);
        assertThat(SeedOrder.order(sorted, 11, epoch)).isEqualTo(split);
        int[] all = new int[n];
        for (int v = 0; v < n; v++) {
          all[n - 1 - v] = v; // any input order gives the same result
        }
        assertThat(SeedOrder.order(all, 11, epoch))
            .isEqualTo(SeedOrder.order(vt, SeedOrder.ALL, 11, epoch));
      }
    }
  }

  @Test
  void fanoutsParseOrExplain() {
    assertThat(Fanouts.parse("15,10,5")).containsExactly(15, 10, 5);
    assertThat(Fanouts.parse(" -1 , 3")).containsExactly(-1, 3);
    assertThat(Fanouts.format(new int[] {15, -1})).isEqualTo("15,-1");
    for (String bad : new String[] {"", "15,,5", "a", "0", "15,0", "-2", "1.5"}) {
      assertThatThrownBy(() -> Fanouts.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("expected");
    }
  }

  private static List<MiniBatch> drain(BatchStream s) {
    List<MiniBatch> out = new ArrayList<>();
    try (s) {
      while (s.hasNext()) {
        out.add(s.next());
      }
    }
    return out;
  }
}
