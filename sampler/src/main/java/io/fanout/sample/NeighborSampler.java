package io.fanout.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.VertexTable;
import java.util.Arrays;

/**
 * Node-wise uniform neighbor sampling without replacement over an in-neighbor {@link CsrGraph}.
 *
 * <p>Hop {@code h} (1-based) takes every node reached so far as a destination and samples {@code
 * min(fanouts[h-1], degree)} distinct in-neighbors of each ({@code -1} = all), with the draws of
 * {@link NodeSampler} keyed by {@link SampleHash#nodeKey}{@code (batchKey, h, node)}. Each hop is
 * built SALIENT-style: count (sample sizes), prefix-sum (row pointers), fill (neighbor ids), then
 * {@link BatchBuilder} dedups the ids into local indices.
 *
 * <p>The sampler is immutable and thread-safe; each thread samples through its own {@link Worker}.
 * A batch depends only on (seed, epoch, batch index, seeds, graph, fanouts).
 */
public final class NeighborSampler {
  private final CsrGraph graph;
  private final VertexTable vertices;
  private final int[] fanouts;
  private final long seed;

  public NeighborSampler(CsrGraph graph, VertexTable vertices, int[] fanouts, long seed) {
    if (graph.numVertices() != vertices.numVertices()) {
      throw new IllegalArgumentException(
          "graph has "
              + graph.numVertices()
              + " vertices but the vertex table "
              + vertices.numVertices());
    }
    for (int f : fanouts) {
      if (f == 0 || f < -1) {
        throw new IllegalArgumentException("fanout " + f + "; expected > 0 or -1");
      }
    }
    this.graph = graph;
    this.vertices = vertices;
    this.fanouts = fanouts.clone();
    this.seed = seed;
  }

  public int layers() {
    return fanouts.length;
  }

  public long seed() {
    return seed;
  }

  /** A new per-thread sampling state. */
  public Worker newWorker() {
    return new Worker();
  }

  /** Per-thread scratch: reused across batches, so a batch allocates only its own arrays. */
  public final class Worker {
    private final BatchBuilder builder = new BatchBuilder();
    private final NodeSampler nodeSampler = new NodeSampler();
    private long[] starts = new long[1024];
    private int[] degrees = new int[1024];
    private int[] positions = new int[64];

    private Worker() {}

    /** Samples the batch whose seeds are {@code seeds[from .. from+count)}. */
    public MiniBatch sample(int epoch, int batch, int[] seeds, int from, int count) {
      long batchKey = SampleHash.batchKey(SampleHash.epochKey(seed, epoch), batch);
      builder.start(fanouts.length, seeds, from, count);
      int n = graph.numVertices();
      for (int i = 0; i < count; i++) {
        int v = seeds[from + i];
        if (v < 0 || v >= n) {
          throw new IllegalArgumentException("seed " + v + " is not a vertex of the graph");
        }
      }
      for (int h = 1; h <= fanouts.length; h++) {
        hop(batchKey, h, fanouts[h - 1]);
      }
      int[] labels = new int[count];
      for (int i = 0; i < count; i++) {
        labels[i] = vertices.label(seeds[from + i]);
      }
      return builder.finish(epoch, batch, labels);
    }

    private void hop(long batchKey, int h, int fanout) {
      int dst = builder.size();
      if (starts.length < dst) {
        starts = new long[Math.max(dst, 2 * starts.length)];
        degrees = new int[starts.length];
      }
      // Count and prefix-sum.
      int[] ptr = new int[dst + 1];
      long total = 0;
      for (int i = 0; i < dst; i++) {
        int v = builder.node(i);
        long s = graph.rowStart(v);
        long degree = graph.rowEnd(v) - s;
        int k = NodeSampler.sampleSize(degree, fanout);
        starts[i] = s;
        if (degree > Integer.MAX_VALUE) {
          throw new IllegalStateException("vertex " + v + " has " + degree + " in-neighbors");
        }
        degrees[i] = (int) degree;
        total += k;
        if (total > Integer.MAX_VALUE - 8) {
          throw new IllegalStateException("hop " + h + " samples more than 2^31 edges");
        }
        ptr[i + 1] = (int) total;
      }
      // Fill.
      int[] ids = new int[(int) total];
      for (int i = 0; i < dst; i++) {
        int k = ptr[i + 1] - ptr[i];
        if (k == 0) {
          continue;
        }
        long s = starts[i];
        int degree = degrees[i];
        int o = ptr[i];
        if (k == degree) {
          for (int j = 0; j < k; j++) {
            ids[o + j] = graph.neighbor(s + j);
          }
        } else {
          if (positions.length < k) {
            positions = new int[Math.max(k, 2 * positions.length)];
          }
          long key = SampleHash.nodeKey(batchKey, h, builder.node(i));
          nodeSampler.choose(key, degree, k, positions, 0);
          for (int j = 0; j < k; j++) {
            ids[o + j] = graph.neighbor(s + positions[j]);
          }
        }
      }
      builder.addHop(ptr, ids);
    }
  }

  @Override
  public String toString() {
    return "NeighborSampler(fanouts=" + Arrays.toString(fanouts) + ", seed=" + seed + ")";
  }
}
