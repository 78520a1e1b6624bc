package io.fanout.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The typed partitioned execution in one JVM: each hop resumes a shipped {@link TypedPartialBatch},
 * samples each relation's destinations one at a time with {@link NodeSampler#sampleNeighbors} keyed
 * by the relation (as a partition owner does, last row first), and snapshots again. It must give
 * exactly the batches of {@link TypedNeighborSampler} and of the plain {@link
 * TypedReferenceSampler}.
 */
class TypedHopByHopTest {
  private static final ArrayTypedGraph G = TypedTestGraphs.acmLike(300, 120, 40, 1500, 9);

  @Test
  void resumingHopByHopGivesTheSamplersBatches() {
    TypedGraph multi = TypedTestGraphs.multiLabel(G, 0);
    for (TypedGraph g : new TypedGraph[] {G, multi}) {
      for (String text : new String[] {"4,3", "cites=5,2;writes=-1,1;*=2,0", "3,0,-1"}) {
        int[][] f = TypedFanouts.parse(text, g.schema());
        TypedNeighborSampler s = new TypedNeighborSampler(g, 0, f, 13);
        int[] order = s.order(SeedOrder.ALL, 1);
        TypedNeighborSampler.Worker w = s.newWorker();
        for (int b = 0; b < 4; b++) {
          int[] seeds = Arrays.copyOfRange(order, b * 24, b * 24 + 24);
          TypedMiniBatch hopByHop = hopByHop(g, f, 13, 1, b, seeds);
          TypedNeighborSamplerTest.assertSame(hopByHop, w.sample(1, b, order, b * 24, 24));
          TypedNeighborSamplerTest.assertSame(
              hopByHop, TypedReferenceSampler.sample(g, 0, f, 13, 1, b, seeds));
        }
      }
    }
  }

  private static TypedMiniBatch hopByHop(
      TypedGraph g, int[][] f, long seed, int epoch, int batch, int[] seeds) {
    TypedSchema s = g.schema();
    TypedPartialBatch p =
        TypedPartialBatch.seeds(
            epoch, batch, s.numTypes(), 0, f[0].length, s.numRelations(), seeds.clone());
    long batchKey = SampleHash.batchKey(SampleHash.epochKey(seed, epoch), batch);
    NodeSampler ns = new NodeSampler();
    int[] positions = new int[2000];
    for (int h = 1; h <= f[0].length; h++) {
      TypedBatchBuilder builder = new TypedBatchBuilder(s, 0);
      builder.resume(p);
      for (int r = 0; r < s.numRelations(); r++) {
        int rows = builder.rows(r);
        if (f[r][h - 1] == 0) {
          builder.addEmptyBlock(r);
          continue;
        }
        CsrGraph csr = g.inNeighbors(r);
        int[] dst = builder.nodes(s.relation(r).dstType());
        long relKey = SampleHash.relationKey(batchKey, r);
        int[][] rowIds = new int[rows][];
        for (int i = rows - 1; i >= 0; i--) { // any order: a row's draws depend on its key only
          int[] buf = new int[2000];
          int k = ns.sampleNeighbors(csr, relKey, h, dst[i], f[r][h - 1], positions, buf, 0);
          rowIds[i] = Arrays.copyOf(buf, k);
        }
        int[] ptr = new int[rows + 1];
        for (int i = 0; i < rows; i++) {
          ptr[i + 1] = ptr[i] + rowIds[i].length;
        }
        int[] ids = new int[ptr[rows]];
        for (int i = 0; i < rows; i++) {
          System.arraycopy(rowIds[i], 0, ids, ptr[i], rowIds[i].length);
        }
        builder.addBlock(r, ptr, ids);
      }
      p = builder.snapshot(null);
      assertThat(p.hops).isEqualTo(h);
    }
    int[] labels = new int[seeds.length];
    int[] labelPtr = g.schema().type(0).multiLabel() ? new int[seeds.length + 1] : null;
    int[][] sets = new int[seeds.length][];
    for (int i = 0; i < seeds.length; i++) {
      labels[i] = g.vertices(0).label(seeds[i]);
      if (labelPtr != null) {
        sets[i] = g.labelSet(0, seeds[i]);
        labelPtr[i + 1] = labelPtr[i] + sets[i].length;
      }
    }
    int[] labelIds = null;
    if (labelPtr != null) {
      labelIds = new int[labelPtr[seeds.length]];
      for (int i = 0; i < seeds.length; i++) {
        System.arraycopy(sets[i], 0, labelIds, labelPtr[i], sets[i].length);
      }
    }
    return p.withLabels(new SeedLabels(labels, labelPtr, labelIds)).toMiniBatch();
  }

  @Test
  void blocksMustComeInRelationOrderAndCoverTheirRows() {
    TypedSchema s = G.schema();
    TypedBatchBuilder b = new TypedBatchBuilder(s, 0);
    b.start(0, 0, 1, new int[] {3, 5}, 0, 2);
    assertThatThrownBy(() -> b.addEmptyBlock(1)).hasMessageContaining("expects relation 0");
    assertThatThrownBy(() -> b.addBlock(0, new int[] {0, 1}, new int[] {1}))
        .hasMessageContaining("do not cover 2 rows");
    b.addEmptyBlock(0);
    assertThatThrownBy(() -> b.snapshot(null))
        .hasMessageContaining("hop 1 has 1 of " + s.numRelations() + " relations");
    assertThatThrownBy(() -> b.start(0, 0, 1, new int[] {3, 3}, 0, 2))
        .hasMessageContaining("seed 3 appears twice in one batch");
    TypedPartialBatch unlabelled =
        TypedPartialBatch.seeds(0, 0, s.numTypes(), 0, 1, s.numRelations(), new int[] {1});
    assertThatThrownBy(unlabelled::toMiniBatch).hasMessageContaining("0 of 1 hops");
  }
}
