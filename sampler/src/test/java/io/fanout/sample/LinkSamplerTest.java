package io.fanout.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.ArrayCsrGraph;
import io.fanout.shard.BatchCodec;
import io.fanout.shard.FeatureEncoding;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Link-prediction batches: pairs over the seeds, negatives, no leakage, thread independence. */
class LinkSamplerTest {
  static final int N = 300;
  static final ArrayCsrGraph G = symmetric(TestGraphs.random(N, 2000, 3, true));
  static final TestGraphs.ArrayVertexTable V = TestGraphs.vertices(N, 4);
  static final TrainEdges E = TrainEdges.of(G, true);

  /** {@code g} with every reverse edge added, rows sorted and deduplicated. */
  static ArrayCsrGraph symmetric(ArrayCsrGraph g) {
    List<List<Integer>> rows = new ArrayList<>();
    for (int v = 0; v < g.numVertices(); v++) {
      rows.add(new ArrayList<>());
    }
    for (int v = 0; v < g.numVertices(); v++) {
      for (long p = g.rowStart(v); p < g.rowEnd(v); p++) {
        int u = g.neighbor(p);
        rows.get(v).add(u);
        rows.get(u).add(v);
      }
    }
    long[] ptr = new long[g.numVertices() + 1];
    List<Integer> idx = new ArrayList<>();
    for (int v = 0; v < g.numVertices(); v++) {
      rows.get(v).stream().distinct().sorted().forEach(idx::add);
      ptr[v + 1] = idx.size();
    }
    return new ArrayCsrGraph(ptr, idx.stream().mapToInt(Integer::intValue).toArray());
  }

  static LinkSampler sampler(String mode, int k) {
    return new LinkSampler(G, V, null, new int[] {10, 5}, 7, E, NegativeSampler.of(mode, G), k);
  }

  static List<MiniBatch> epoch(LinkSampler s, int threads) {
    int[] order = SeedOrder.order(E.ids(), 7, 0);
    List<MiniBatch> out = new ArrayList<>();
    try (BatchStream b =
        new BatchStream(s, 0, order, 64, 0, SeedOrder.batches(order.length, 64), threads, 4)) {
      while (b.hasNext()) {
        out.add(b.next());
      }
    }
    return out;
  }

  @Test
  void everyTrainingPairIsAPositiveOnceAndUndirectedPairsOnce() {
    assertThat(E.size()).isGreaterThan(1000);
    for (int i = 0; i < E.size(); i++) {
      assertThat(E.src(i)).isLessThan(E.dst(i));
    }
    boolean[] seen = new boolean[E.size()];
    long positives = 0;
    for (MiniBatch b : epoch(sampler("uniform", 3), 1)) {
      LinkPairs p = b.pairs();
      int pos = 0;
      for (int i = 0; i < p.size(); i++) {
        pos += p.label()[i];
      }
      assertThat(p.size()).isEqualTo(4 * pos);
      for (int i = 0; i < pos; i++) {
        assertThat(p.label()[i]).isEqualTo(1);
        int s = b.nodes()[p.src()[i]];
        int d = b.nodes()[p.dst()[i]];
        int e = find(s, d);
        assertThat(seen[e]).isFalse();
        seen[e] = true;
      }
      for (int i = pos; i < p.size(); i++) { // a negative keeps its positive's source
        assertThat(p.label()[i]).isZero();
        assertThat(p.src()[i]).isEqualTo(p.src()[(i - pos) / 3]);
      }
      positives += pos;
    }
    assertThat(positives).isEqualTo(E.size());
  }

  static int find(int s, int d) {
    for (int i = 0; i < E.size(); i++) {
      if (E.src(i) == s && E.dst(i) == d) {
        return i;
      }
    }
    throw new AssertionError("not a training edge: " + s + " - " + d);
  }

  @Test
  void noPositiveEdgeReachesItsBatchesBlocks() {
    for (String mode : NegativeSampler.MODES) {
      long blockEdges = 0;
      for (MiniBatch b : epoch(sampler(mode, 2), 2)) {
        PairSet positives = new PairSet();
        LinkPairs p = b.pairs();
        for (int i = 0; i < p.size(); i++) {
          if (p.label()[i] == 1) {
            positives.add(b.nodes()[p.src()[i]], b.nodes()[p.dst()[i]]);
          }
        }
        for (int h = 1; h <= b.layers(); h++) {
          int[] ptr = b.indptr(h);
          int[] ix = b.indices(h);
          for (int i = 0; i + 1 < ptr.length; i++) {
            for (int e = ptr[i]; e < ptr[i + 1]; e++) {
              assertThat(positives.contains(b.nodes()[i], b.nodes()[ix[e]]))
                  .as("%s batch %d hop %d: edge %d - %d", mode, b.batch(), h, i, ix[e])
                  .isFalse();
              blockEdges++;
            }
          }
        }
      }
      assertThat(blockEdges).isGreaterThan(10_000); // the blocks are not empty
    }
  }

  @Test
  void withoutTheExclusionTheBlocksWouldHoldPositiveEdges() {
    // the check above can fail: the plain sampler from the same seeds samples positive edges
    MiniBatch b = epoch(sampler("uniform", 1), 1).get(0);
    NeighborSampler plain = new NeighborSampler(G, V, new int[] {10, 5}, 7);
    MiniBatch same = plain.newWorker().sample(0, 0, b.nodes(), 0, b.numSeeds());
    PairSet positives = new PairSet();
    for (int i = 0; i < b.pairs().size(); i++) {
      if (b.pairs().label()[i] == 1) {
        positives.add(b.nodes()[b.pairs().src()[i]], b.nodes()[b.pairs().dst()[i]]);
      }
    }
    int leaks = 0;
    int[] ptr = same.indptr(1);
    for (int i = 0; i + 1 < ptr.length; i++) {
      for (int e = ptr[i]; e < ptr[i + 1]; e++) {
        leaks += positives.contains(same.nodes()[i], same.nodes()[same.indices(1)[e]]) ? 1 : 0;
      }
    }
    assertThat(leaks).isPositive();
  }

  @Test
  void batchesDoNotDependOnThreadsAndRoundTripThroughTheCodec() {
    List<MiniBatch> one = epoch(sampler("degree", 2), 1);
    List<MiniBatch> three = epoch(sampler("degree", 2), 3);
    assertThat(three).hasSameSizeAs(one);
    for (int i = 0; i < one.size(); i++) {
      byte[] a = BatchCodec.encode(one.get(i), null, FeatureEncoding.NONE).pairs();
      byte[] b = BatchCodec.encode(three.get(i), null, FeatureEncoding.NONE).pairs();
      assertThat(b).isEqualTo(a);
      MiniBatch back = BatchCodec.decode(BatchCodec.encode(one.get(i), null, FeatureEncoding.NONE));
      assertThat(back.pairs().src()).isEqualTo(one.get(i).pairs().src());
      assertThat(back.pairs().dst()).isEqualTo(one.get(i).pairs().dst());
      assertThat(back.pairs().label()).isEqualTo(one.get(i).pairs().label());
      assertThat(back.nodes()).isEqualTo(three.get(i).nodes());
      assertThat(back.indices(2)).isEqualTo(three.get(i).indices(2));
    }
  }

  @Test
  void inBatchNegativesAreOtherPositivesDestinations() {
    MiniBatch b = epoch(sampler("in-batch", 2), 1).get(0);
    LinkPairs p = b.pairs();
    int pos = 64;
    for (int i = 0; i < pos; i++) {
      for (int j = 0; j < 2; j++) {
        assertThat(p.dst()[pos + 2 * i + j]).isEqualTo(p.dst()[(i + 1 + j) % pos]);
      }
    }
  }

  @Test
  void degreeNegativesFollowDegreeAndUnknownModesAreRefused() {
    NegativeSampler d = NegativeSampler.of("degree", G);
    int[] hits = new int[N];
    for (int i = 0; i < 20_000; i++) {
      hits[d.draw(SampleHash.draw(11, i))]++;
    }
    for (int v = 0; v < N; v++) {
      if (G.rowEnd(v) == G.rowStart(v)) {
        assertThat(hits[v]).isZero();
      }
    }
    assertThatThrownBy(() -> NegativeSampler.of("hard", G))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown negative mode 'hard'; expected one of uniform, degree, in-batch");
  }
}
