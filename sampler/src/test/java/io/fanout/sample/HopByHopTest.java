package io.fanout.sample;

import io.fanout.graph.ArrayCsrGraph;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The partitioned execution in one JVM: each hop resumes a shipped {@link PartialBatch}, samples
 * each destination on its own with {@link NodeSampler#sampleNeighbors}, and snapshots again. It
 * must give exactly the batches of {@link NeighborSampler}.
 */
class HopByHopTest {
  @Test
  void resumingHopByHopGivesTheSameBatches() {
    for (boolean dedupe : new boolean[] {true, false}) {
      ArrayCsrGraph g = TestGraphs.random(3_000, 40_000, 21, dedupe);
      TestGraphs.ArrayVertexTable vt = TestGraphs.vertices(3_000, 21);
      for (int[] fanouts : new int[][] {{15, 10, 5}, {-1, 2}, {40}}) {
        NeighborSampler s = new NeighborSampler(g, vt, fanouts, 77);
        NeighborSampler.Worker w = s.newWorker();
        int[] order = SeedOrder.order(vt, SeedOrder.ALL, 77, 2);
        NodeSampler ns = new NodeSampler();
        int[] positions = new int[3_000];
        for (int b = 0; b < 5; b++) {
          int[] seeds = Arrays.copyOfRange(order, b * 64, b * 64 + 64);
          int[] labels = new int[64];
          for (int i = 0; i < 64; i++) {
            labels[i] = vt.label(seeds[i]);
          }
          PartialBatch p = PartialBatch.seeds(2, b, fanouts.length, seeds, labels);
          long batchKey = SampleHash.batchKey(SampleHash.epochKey(77, 2), b);
          for (int h = 1; h <= fanouts.length; h++) {
            BatchBuilder builder = new BatchBuilder();
            builder.resume(p);
            int n = builder.size();
            int[] ptr = new int[n + 1];
            int[] buf = new int[(int) g.numEdges() + 1];
            for (int i = 0; i < n; i++) {
              ptr[i + 1] =
                  ptr[i]
                      + ns.sampleNeighbors(
                          g, batchKey, h, builder.node(i), fanouts[h - 1], positions, buf, ptr[i]);
            }
            builder.addHop(ptr, Arrays.copyOf(buf, ptr[n]));
            p = builder.snapshot(2, b, labels);
          }
          NeighborSamplerTest.assertSame(w.sample(2, b, order, b * 64, 64), p.toMiniBatch());
        }
      }
    }
  }
}
