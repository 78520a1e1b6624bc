package io.fanout.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import io.fanout.graph.VertexTable;
import java.util.Arrays;

/**
 * Node-wise neighbor sampling without replacement over an in-neighbor {@link CsrGraph}: uniform, or
 * with {@link EdgeWeights} proportional to the weights ({@link WeightedNodeSampler}).
 *
 * <p>Hop {@code h} (1-based) takes every node reached so far as a destination and samples {@code
 * min(fanouts[h-1], degree)} distinct in-neighbors of each ({@code -1} = all), with the draws of
 * {@link NodeSampler} keyed by {@link SampleHash#nodeKey}{@code (batchKey, h, node)}; weighted, it
 * samples {@code min(fanouts[h-1], positive-weight in-neighbors)} with {@link WeightedNodeSampler}
 * under the same keys. Each hop is built SALIENT-style: count (sample sizes), prefix-sum (row
 * pointers), fill (neighbor ids), then {@link BatchBuilder} dedups the ids into local indices.
 *
 * <p>The sampler is immutable and thread-safe; each thread samples through its own {@link Worker}.
 * A batch depends only on (seed, epoch, batch index, seeds, graph, weights, fanouts).
 */
public final class NeighborSampler implements BatchSampler {
  private final CsrGraph graph;
  private final VertexTable vertices;
  private final EdgeWeights weights;
  private final int[] fanouts;
  private final long seed;

  /** A uniform sampler. */
  public NeighborSampler(CsrGraph graph, VertexTable vertices, int[] fanouts, long seed) {
    this(graph, vertices, null, fanouts, seed);
  }

  /**
   * A sampler weighted by {@code weights} (positions of {@code graph}), or uniform when it is null.
   */
  public NeighborSampler(
      CsrGraph graph, VertexTable vertices, EdgeWeights weights, int[] fanouts, long seed) {
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
    this.weights = weights;
    this.fanouts = fanouts.clone();
    this.seed = seed;
  }

  public int layers() {
    return fanouts.length;
  }

  public long seed() {
    return seed;
  }

  @Override
  public Worker newWorker() {
    return new Worker();
  }

  /** Per-thread scratch: reused across batches, so a batch allocates only its own arrays. */
  public final class Worker implements BatchSampler.Worker {
    private final BatchBuilder builder = new BatchBuilder();
    private final NodeSampler nodeSampler = new NodeSampler();
    private final WeightedNodeSampler weightedSampler = new WeightedNodeSampler();
    private int[] picks = new int[1024];
    private long[] starts = new long[1024];
    private int[] degrees = new int[1024];
    private int[] positions = new int[64];
    private PairSet exclude;
    private int[] leftOut; // vertex -> >= 0 when its last-hop row samples nothing; null: none
    private long leftOutEdges;

    private Worker() {}

    /**
     * From the next batch on, the rows of the last hop past the seeds whose vertex {@code v} has
     * {@code slotOf[v] >= 0} (ids past the array's end count as -1) sample no neighbors: their
     * subtrees are computed elsewhere (hot-embedding reuse), so only the other rows' neighbors are
     * drawn and deduplicated. Every other row draws exactly what it draws without this (the draws
     * are keyed by node), so pruning those rows from the full batch gives the same rows and edges.
     * Null turns it off. Returns this.
     */
    public Worker leaveOutInLastHop(int[] slotOf) {
      this.leftOut = slotOf;
      return this;
    }

    /** Edges the last batch's left-out rows would have sampled ({@link #leaveOutInLastHop}). */
    public long leftOutEdges() {
      return leftOutEdges;
    }

    @Override
    public MiniBatch sample(int epoch, int batch, int[] seeds, int from, int count) {
      return sample(epoch, batch, seeds, from, count, null, null);
    }

    /**
     * Samples the batch whose seeds are {@code seeds[from .. from+count)}, leaving out of every
     * block the edges (either direction) in {@code exclude} (null: none), and attaching {@code
     * pairs} (null: none).
     */
    public MiniBatch sample(
        int epoch, int batch, int[] seeds, int from, int count, PairSet exclude, LinkPairs pairs) {
      this.exclude = exclude;
      leftOutEdges = 0;
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
        if (weights == null) {
          hop(batchKey, h, fanouts[h - 1]);
        } else {
          weightedHop(batchKey, h, fanouts[h - 1]);
        }
      }
      int[] labels = new int[count];
      for (int i = 0; i < count; i++) {
        labels[i] = vertices.label(seeds[from + i]);
      }
      return builder.finish(epoch, batch, labels, pairs);
    }

    private int[] dropExcluded(int[] ptr, int[] ids) {
      return exclude == null ? ids : exclude.dropFrom(ptr, ids, builder::node);
    }

    private void hop(long batchKey, int h, int fanout) {
      int dst = builder.size();
      if (starts.length < dst) {
        starts = new long[Math.max(dst, 2 * starts.length)];
        degrees = new int[starts.length];
      }
      int[] out = h == fanouts.length ? leftOut : null;
      int from = builder.numSeeds();
      // Count and prefix-sum.
      int[] ptr = new int[dst + 1];
      long total = 0;
      for (int i = 0; i < dst; i++) {
        int v = builder.node(i);
        long s = graph.rowStart(v);
        int degree = NodeSampler.rowDegree(graph, v, s);
        int k = NodeSampler.sampleSize(degree, fanout);
        if (out != null && i >= from && v < out.length && out[v] >= 0) {
          leftOutEdges += k;
          k = 0;
        }
        starts[i] = s;
        degrees[i] = degree;
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
        if (positions.length < k) {
          positions = new int[Math.max(k, 2 * positions.length)];
        }
        long key = SampleHash.nodeKey(batchKey, h, builder.node(i));
        nodeSampler.fillRow(graph, starts[i], degrees[i], k, key, positions, ids, ptr[i]);
      }
      builder.addHop(ptr, dropExcluded(ptr, ids));
    }

    /**
     * A weighted hop: the sample size depends on the weights, so each row is sampled once, in the
     * counting pass, into the {@code picks} scratch, then copied out.
     */
    private void weightedHop(long batchKey, int h, int fanout) {
      int dst = builder.size();
      int[] out = h == fanouts.length ? leftOut : null;
      int from = builder.numSeeds();
      int[] ptr = new int[dst + 1];
      int total = 0;
      for (int i = 0; i < dst; i++) {
        int v = builder.node(i);
        long s = graph.rowStart(v);
        int degree = NodeSampler.rowDegree(graph, v, s);
        if (out != null && i >= from && v < out.length && out[v] >= 0) {
          long key = SampleHash.nodeKey(batchKey, h, v);
          int room = WeightedNodeSampler.capacity(degree, fanout);
          if (picks.length < total + room) {
            picks = Arrays.copyOf(picks, Math.max(total + room, 2 * picks.length));
          }
          leftOutEdges += weightedSampler.choose(key, weights, s, degree, fanout, picks, total);
          ptr[i + 1] = total;
          continue;
        }
        int room = WeightedNodeSampler.capacity(degree, fanout);
        if ((long) total + room > Integer.MAX_VALUE - 8) {
          throw new IllegalStateException("hop " + h + " samples more than 2^31 edges");
        }
        if (picks.length < total + room) {
          picks = Arrays.copyOf(picks, Math.max(total + room, 2 * picks.length));
        }
        long key = SampleHash.nodeKey(batchKey, h, v);
        int k = weightedSampler.choose(key, weights, s, degree, fanout, picks, total);
        for (int j = total; j < total + k; j++) {
          picks[j] = graph.neighbor(s + picks[j]);
        }
        total += k;
        ptr[i + 1] = total;
      }
      builder.addHop(ptr, dropExcluded(ptr, Arrays.copyOf(picks, total)));
    }
  }

  @Override
  public String toString() {
    return "NeighborSampler(fanouts=" + Arrays.toString(fanouts) + ", seed=" + seed + ")";
  }
}
