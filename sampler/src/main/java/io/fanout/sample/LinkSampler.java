package io.fanout.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import io.fanout.graph.VertexTable;

/**
 * Link-prediction batches ({@code sample --task link}). The seeds are indices into {@link
 * TrainEdges}; a batch of {@code B} positives gets {@code k} negatives each, pairing the positive's
 * source with a destination from the {@link NegativeSampler} (in-batch: the destinations of the
 * {@code k} following positives of the batch, cyclically; fewer when the batch is smaller).
 *
 * <p>The batch's seed nodes are the pairs' endpoints, deduplicated in pair order (positives, then
 * negatives), and its blocks are sampled from them by {@link NeighborSampler} with the batch's
 * positive edges, in both directions, left out of every block: no positive pair's own edge reaches
 * its message passing. The excluded edges are removed after sampling, so a node adjacent to a
 * positive may get one sample fewer than its fanout.
 */
public final class LinkSampler implements BatchSampler {
  private static final long NEGATIVES = 0x4E45474154495645L;

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
    private final DedupMap local = new DedupMap(4096);
    private final PairSet exclude = new PairSet();
    private int[] nodes = new int[1024];
    private int size;

    private Worker() {}

    private int local(int v) {
      int l = local.putIfAbsent(v, size);
      if (l >= 0) {
        return l;
      }
      if (size == nodes.length) {
        nodes = java.util.Arrays.copyOf(nodes, 2 * size);
      }
      nodes[size] = v;
      return size++;
    }

    @Override
    public MiniBatch sample(int epoch, int batch, int[] seeds, int from, int count) {
      local.clear();
      exclude.clear();
      size = 0;
      int k = negatives.inBatch() ? Math.min(perPositive, count - 1) : perPositive;
      int pairs = count * (1 + k);
      int[] src = new int[pairs];
      int[] dst = new int[pairs];
      int[] label = new int[pairs];
      for (int i = 0; i < count; i++) {
        int e = seeds[from + i];
        int s = edges.src(e);
        int d = edges.dst(e);
        src[i] = local(s);
        dst[i] = local(d);
        label[i] = 1;
        exclude.add(s, d);
      }
      long key =
          SampleHash.mix(SampleHash.batchKey(SampleHash.epochKey(seed, epoch), batch) ^ NEGATIVES);
      int p = count;
      for (int i = 0; i < count; i++) {
        int s = edges.src(seeds[from + i]);
        for (int j = 0; j < k; j++) {
          int c =
              negatives.inBatch()
                  ? edges.dst(seeds[from + (i + 1 + j) % count])
                  : negatives.draw(SampleHash.draw(key, (long) i * k + j));
          src[p] = local(s);
          dst[p] = local(c);
          p++;
        }
      }
      return inner.sample(epoch, batch, nodes, 0, size, exclude, new LinkPairs(src, dst, label));
    }
  }
}
