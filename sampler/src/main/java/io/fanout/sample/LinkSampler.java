package io.fanout.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import io.fanout.graph.VertexTable;

/**
 * Link-prediction batches ({@code sample --task link}). The seeds are indices into {@link
 * TrainEdges}; a batch of {@code B} positives gets {@code k} negatives each, pairing the positive's
 * source with a destination from the {@link NegativeSampler} (in-batch: the destinations of the
 * {@code k} following positives of the batch, cyclically; fewer when the batch is smaller), built
 * by {@link LinkPairBuilder}.
 *
 * <p>The batch's seed nodes are the pairs' endpoints, deduplicated in pair order (positives, then
 * negatives), and its blocks are sampled from them by {@link NeighborSampler} with the batch's
 * positive edges, in both directions, left out of every block: no positive pair's own edge reaches
 * its message passing. The excluded edges are removed after sampling, so a node adjacent to a
 * positive may get one sample fewer than its fanout.
 */
public final class LinkSampler implements BatchSampler {
  private final NeighborSampler blocks;
  private final TrainEdges edges;
  private final NegativeSampler negatives;
  private final int perPositive;
  private final long seed;

  public LinkSampler(
      CsrGraph graph,
      VertexTable vertices,
      EdgeWeights weights,
      int[] fanouts,
      long seed,
      TrainEdges edges,
      NegativeSampler negatives,
      int perPositive) {
    if (perPositive < 1) {
      throw new IllegalArgumentException("negatives per positive " + perPositive + " < 1");
    }
    this.blocks = new NeighborSampler(graph, vertices, weights, fanouts, seed);
    this.edges = edges;
    this.negatives = negatives;
    this.perPositive = perPositive;
    this.seed = seed;
  }

  @Override
  public Worker newWorker() {
    return new Worker();
  }

  /** Per-thread scratch. */
  public final class Worker implements BatchSampler.Worker {
    private final NeighborSampler.Worker inner = blocks.newWorker();
    private final LinkPairBuilder pairs = new LinkPairBuilder(negatives, perPositive, seed);
    private int[] src = new int[512];
    private int[] dst = new int[512];

    private Worker() {}

    @Override
    public MiniBatch sample(int epoch, int batch, int[] seeds, int from, int count) {
      if (src.length < count) {
        src = new int[count];
        dst = new int[count];
      }
      for (int i = 0; i < count; i++) {
        int e = seeds[from + i];
        src[i] = edges.src(e);
        dst[i] = edges.dst(e);
      }
      LinkPairs p = pairs.build(epoch, batch, src, dst, count);
      return inner.sample(epoch, batch, pairs.nodes(), 0, pairs.size(), pairs.exclude(), p);
    }
  }
}
