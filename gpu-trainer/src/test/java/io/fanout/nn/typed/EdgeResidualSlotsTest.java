package io.fanout.nn.typed;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.nn.EmbeddingMode;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.tensor.CpuBackend;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The edge residual's matching of a hop's edges with the previous hop's, on batches of the typed
 * sampler, against a reference that lists every slot of both merged blocks by (destination vertex,
 * relation, source vertex, occurrence).
 */
class EdgeResidualSlotsTest {
  private static final int SELF = -1;

  private static TypedMiniBatch batch(ArrayTypedGraph g, int[][] fanouts) {
    return new TypedNeighborSampler(g, 0, fanouts, 5)
        .newWorker()
        .sample(0, 0, new int[] {0, 3, 7, 11, 2, 19}, 0, 6);
  }

  /**
   * Every slot of hop {@code hop}'s merged block (HgnLayer's order) as "type:dst|rel|src#k", the
   * vertices by their type-local ids in the batch's node lists, {@code k} the occurrence.
   */
  private static List<String> slots(TypedMiniBatch mb, TypedModelConfig cfg, int hop) {
    List<String> out = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    for (int t = 0; t < cfg.numTypes(); t++) {
      for (int i = 0; i < mb.layerSize(t, hop - 1); i++) {
        String dst = t + ":" + mb.nodes(t)[i];
        List<String> row = new ArrayList<>();
        row.add(dst + "|" + SELF + "|" + mb.nodes(t)[i]);
        for (int r : cfg.relationsInto(t)) {
          int[] rp = mb.indptr(hop, r);
          int[] ri = mb.indices(hop, r);
          int s = cfg.relation(r).src();
          for (int e = rp[i]; e < rp[i + 1]; e++) {
            row.add(dst + "|" + r + "|" + mb.nodes(s)[ri[e]]);
          }
        }
        for (String key : row) {
          int k = seen.merge(key, 1, Integer::sum);
          out.add(key + "#" + k);
        }
      }
    }
    return out;
  }

  private static void check(ArrayTypedGraph g, int[][] fanouts, boolean allMatch) {
    TypedModelConfig cfg =
        TypedModelConfig.of(g.schema(), 0, TypedModelKind.HGN, 4, 3, 0f, 0, EmbeddingMode.AUTO);
    TypedMiniBatch mb = batch(g, fanouts);
    try (TypedBatchTensors b = new TypedBatchTensors(new CpuBackend())) {
      b.upload(mb);
      int matched = 0;
      int unmatched = 0;
      for (int hop = 1; hop < mb.layers(); hop++) {
        List<String> cur = slots(mb, cfg, hop);
        List<String> prev = slots(mb, cfg, hop + 1);
        Map<String, Integer> at = new HashMap<>();
        for (int q = 0; q < prev.size(); q++) {
          at.put(prev.get(q), q);
        }
        int[] got = EdgeResidualSlots.match(b, cfg, hop);
        assertThat(got).hasSize(cur.size());
        assertThat(EdgeResidualSlots.rowStarts(b, cfg, hop + 1)[b.totalRows(hop)])
            .isEqualTo(prev.size());
        for (int q = 0; q < got.length; q++) {
          assertThat(got[q])
              .as("hop %d slot %d (%s)", hop, q, cur.get(q))
              .isEqualTo(at.getOrDefault(cur.get(q), -1));
          matched += got[q] >= 0 ? 1 : 0;
          unmatched += got[q] < 0 ? 1 : 0;
        }
      }
      assertThat(matched).isPositive();
      if (allMatch) {
        assertThat(unmatched).isZero();
      } else {
        assertThat(unmatched).as("sampled hops draw different neighbors").isPositive();
      }
    }
  }

  @Test
  void fullNeighborhoodsMatchEveryEdge() {
    ArrayTypedGraph g = TypedTestGraphs.small(11);
    int rels = g.schema().numRelations();
    int[][] full = new int[rels][3]; // per relation, per hop
    for (int[] f : full) {
      java.util.Arrays.fill(f, -1);
    }
    check(g, full, true);
  }

  @Test
  void sampledHopsMatchTheEdgesBothDrew() {
    ArrayTypedGraph g = TypedTestGraphs.small(11);
    int rels = g.schema().numRelations();
    int[][] sampled = new int[rels][];
    for (int r = 0; r < rels; r++) {
      sampled[r] = new int[] {2, 3, 2};
    }
    check(g, sampled, false);
  }
}
