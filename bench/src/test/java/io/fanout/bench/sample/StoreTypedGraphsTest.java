package io.fanout.bench.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.TypedGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The heap copy of a typed graph and its one-type merge, against the edges they were built of. */
class StoreTypedGraphsTest {
  private static int[] random(SplittableRandom r, int n, int bound) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = r.nextInt(bound);
    }
    return a;
  }

  private static List<Integer> row(CsrGraph g, int v) {
    List<Integer> out = new ArrayList<>();
    for (long p = g.rowStart(v); p < g.rowEnd(v); p++) {
      out.add(g.neighbor(p));
    }
    return out;
  }

  @Test
  void theMergedGraphHoldsEveryRelationsEdgesUnderGlobalIds() {
    SplittableRandom r = new SplittableRandom(3);
    int[] labels = new int[7];
    for (int i = 0; i < labels.length; i++) {
      labels[i] = i % 3;
    }
    TypedGraph g =
        ArrayTypedGraph.builder()
            .type("a", 5, 0, null, null, null)
            .type("b", 7, 0, null, labels, null)
            .relation("ab", "a", "b", random(r, 40, 5), random(r, 40, 7))
            .relation("bb", "b", "b", random(r, 30, 7), random(r, 30, 7))
            .relation("ba", "b", "a", random(r, 20, 7), random(r, 20, 5))
            .build();
    TypedGraph heap = StoreTypedGraphs.onHeap(g);
    CsrGraph merged = StoreTypedGraphs.merged(heap);
    assertThat(merged.numVertices()).isEqualTo(12);
    assertThat(merged.numEdges()).isEqualTo(90);
    for (int rel = 0; rel < 3; rel++) {
      CsrGraph c = g.inNeighbors(rel);
      for (int v = 0; v < c.numVertices(); v++) {
        assertThat(row(heap.inNeighbors(rel), v)).isEqualTo(row(c, v));
      }
    }
    for (int v = 0; v < 5; v++) {
      List<Integer> want = new ArrayList<>();
      row(g.inNeighbors(2), v).forEach(u -> want.add(5 + u));
      assertThat(row(merged, v)).isEqualTo(want);
    }
    for (int v = 0; v < 7; v++) {
      List<Integer> want = new ArrayList<>(row(g.inNeighbors(0), v));
      row(g.inNeighbors(1), v).forEach(u -> want.add(5 + u));
      assertThat(row(merged, 5 + v)).isEqualTo(want);
    }
    int seedType = StoreTypedGraphs.seedType(g.schema());
    assertThat(seedType).isEqualTo(1);
    var vt = StoreTypedGraphs.mergedVertices(heap, seedType);
    assertThat(vt.numVertices()).isEqualTo(12);
    assertThat(vt.label(0)).isEqualTo(-1);
    assertThat(vt.label(5 + 4)).isEqualTo(1);
  }
}
