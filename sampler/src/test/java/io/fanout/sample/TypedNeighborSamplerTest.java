package io.fanout.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.store.StoreLayout;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TypedNeighborSamplerTest {
  private static final ArrayTypedGraph G = TypedTestGraphs.acmLike(300, 120, 40, 1500, 7);

  @Test
  void batchesMatchTheReferenceAndAreWellFormed() {
    for (String text : new String[] {"4,3", "cites=5,2;writes=-1,1;*=2,0", "3,2,2"}) {
      int[][] f = TypedFanouts.parse(text, G.schema());
      TypedNeighborSampler s = new TypedNeighborSampler(G, 0, f, 11);
      int[] order = s.order(StoreLayout.SPLIT_TRAIN, 2);
      TypedNeighborSampler.Worker w = s.newWorker();
      for (int b = 0; b * 16 < order.length; b++) {
        int count = Math.min(16, order.length - b * 16);
        TypedMiniBatch got = w.sample(2, b, order, b * 16, count);
        int[] seeds = java.util.Arrays.copyOfRange(order, b * 16, b * 16 + count);
        TypedMiniBatch want = TypedReferenceSampler.sample(G, 0, f, 11, 2, b, seeds);
        assertSame(got, want);
        checkWellFormed(G, got, f, seeds);
      }
    }
  }

  @Test
  void seedsAreTheSplitMembersOfTheSeedType() {
    TypedNeighborSampler s = new TypedNeighborSampler(G, 0, TypedFanouts.parse("2", G.schema()), 3);
    int[] order = s.order(StoreLayout.SPLIT_VAL, 0);
    Set<Integer> want = new HashSet<>();
    for (int v = 0; v < 300; v++) {
      if (G.vertices(0).split(v) == StoreLayout.SPLIT_VAL) {
        want.add(v);
      }
    }
    Set<Integer> got = new HashSet<>();
    for (int v : order) {
      got.add(v);
    }
    assertThat(got).isEqualTo(want);
    assertThat(order).isEqualTo(SeedOrder.order(G.vertices(0), StoreLayout.SPLIT_VAL, 3, 0));
    assertThat(s.order(StoreLayout.SPLIT_VAL, 1)).isNotEqualTo(order);
  }

  @Test
  void aBatchDoesNotDependOnTheWorkerOrWhatItSampledBefore() {
    int[][] f = TypedFanouts.parse("5,3", G.schema());
    TypedNeighborSampler s = new TypedNeighborSampler(G, 0, f, 5);
    int[] order = s.order(SeedOrder.ALL, 0);
    TypedNeighborSampler.Worker fresh = s.newWorker();
    TypedNeighborSampler.Worker used = s.newWorker();
    for (int b = 0; b < 6; b++) {
      used.sample(0, b, order, b * 32, 32);
    }
    assertSame(fresh.sample(0, 3, order, 96, 32), used.sample(0, 3, order, 96, 32));
  }

  @Test
  void multiLabelSeedsCarryTheirLabelSets() {
    TypedGraph g = TypedTestGraphs.multiLabel(G, 0);
    int[][] f = TypedFanouts.parse("3,2", g.schema());
    TypedNeighborSampler s = new TypedNeighborSampler(g, 0, f, 1);
    int[] order = s.order(SeedOrder.ALL, 0);
    TypedMiniBatch b = s.newWorker().sample(0, 0, order, 0, 40);
    assertThat(b.multiLabel()).isTrue();
    for (int i = 0; i < 40; i++) {
      assertThat(java.util.Arrays.copyOfRange(b.labelIds(), b.labelPtr()[i], b.labelPtr()[i + 1]))
          .isEqualTo(g.labelSet(0, order[i]));
    }
    assertSame(
        b,
        TypedReferenceSampler.sample(g, 0, f, 1, 0, 0, java.util.Arrays.copyOfRange(order, 0, 40)));
  }

  @Test
  void aSeedTypeThatNoRelationEntersSamplesOnlyItsSeeds() {
    // author is the destination of written_by only; term is the destination of nothing
    int[][] f = TypedFanouts.parse("3,2", G.schema());
    TypedMiniBatch b =
        new TypedNeighborSampler(G, 2, f, 1).newWorker().sample(0, 0, new int[] {0, 1, 2}, 0, 3);
    assertThat(b.numEdges()).isZero();
    assertThat(b.layerSizes()[2]).containsExactly(3, 3, 3);
    assertThat(b.layerSizes()[0]).containsExactly(0, 0, 0);
  }

  @Test
  void badSeedsAreRefused() {
    TypedNeighborSampler.Worker w =
        new TypedNeighborSampler(G, 0, TypedFanouts.parse("2", G.schema()), 1).newWorker();
    assertThatThrownBy(() -> w.sample(0, 0, new int[] {300}, 0, 1))
        .hasMessage("seed 300 is not a vertex of type paper");
    assertThatThrownBy(() -> w.sample(0, 0, new int[] {4, 4}, 0, 2))
        .hasMessage("seed 4 appears twice in one batch");
  }

  static void assertSame(TypedMiniBatch got, TypedMiniBatch want) {
    assertThat(got.layerSizes()).isDeepEqualTo(want.layerSizes());
    for (int t = 0; t < got.numTypes(); t++) {
      assertThat(got.nodes(t)).isEqualTo(want.nodes(t));
    }
    for (int h = 1; h <= got.layers(); h++) {
      for (int r = 0; r < got.numRelations(); r++) {
        assertThat(got.indptr(h, r)).as("indptr h%d r%d", h, r).isEqualTo(want.indptr(h, r));
        assertThat(got.indices(h, r)).as("indices h%d r%d", h, r).isEqualTo(want.indices(h, r));
      }
    }
    assertThat(got.labels()).isEqualTo(want.labels());
    assertThat(got.labelPtr()).isEqualTo(want.labelPtr());
    assertThat(got.labelIds()).isEqualTo(want.labelIds());
    assertThat(got.epoch()).isEqualTo(want.epoch());
    assertThat(got.batch()).isEqualTo(want.batch());
  }

  /** The batch's contract checked directly against the graph. */
  static void checkWellFormed(TypedGraph g, TypedMiniBatch b, int[][] f, int[] seeds) {
    TypedSchema s = g.schema();
    assertThat(b.nodes(b.seedType())).startsWith(seeds);
    for (int t = 0; t < s.numTypes(); t++) {
      assertThat(b.nodes(t)).doesNotHaveDuplicates();
      for (int h = 1; h <= b.layers(); h++) {
        assertThat(b.layerSize(t, h)).isGreaterThanOrEqualTo(b.layerSize(t, h - 1));
      }
    }
    for (int h = 1; h <= b.layers(); h++) {
      for (int r = 0; r < s.numRelations(); r++) {
        TypedSchema.Relation rel = s.relation(r);
        CsrGraph csr = g.inNeighbors(r);
        int[] ptr = b.indptr(h, r);
        int[] ix = b.indices(h, r);
        assertThat(ptr).hasSize(b.layerSize(rel.dstType(), h - 1) + 1);
        for (int i = 0; i + 1 < ptr.length; i++) {
          int v = b.nodes(rel.dstType())[i];
          long degree = csr.degree(v);
          int fan = f[r][h - 1];
          long want = fan < 0 ? degree : Math.min(degree, fan);
          assertThat(ptr[i + 1] - ptr[i]).isEqualTo((int) want);
          Set<Integer> row = new HashSet<>();
          for (int e = ptr[i]; e < ptr[i + 1]; e++) {
            // indices lie in the source type's nodes after hop h (the prefix property)
            assertThat(ix[e]).isBetween(0, b.layerSize(rel.srcType(), h) - 1);
            int u = b.nodes(rel.srcType())[ix[e]];
            assertThat(row.add(u)).as("drawn without replacement").isTrue();
            boolean found = false;
            for (long p = csr.rowStart(v); p < csr.rowEnd(v); p++) {
              found |= csr.neighbor(p) == u;
            }
            assertThat(found).as("edge %d -> %d exists in %s", u, v, rel.name()).isTrue();
          }
        }
      }
    }
    for (int i = 0; i < seeds.length; i++) {
      assertThat(b.labels()[i]).isEqualTo(g.vertices(b.seedType()).label(seeds[i]));
    }
  }
}
