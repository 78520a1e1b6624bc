package io.fanout.sample;

import io.fanout.graph.TypedGraph;

/**
 * Link-prediction batches of a typed graph ({@code sample --task link} on a store prepared with
 * {@code --link-relation R}, {@code R = S -> D}). The seeds are indices into the training edges of
 * {@code R} ({@link TrainEdges#ofRelation}); a batch of {@code B} positives gets {@code k}
 * negatives each, pairing the positive's source with a destination of type {@code D} from the
 * {@link NegativeSampler} (drawn over {@code D}'s vertices), built by {@link LinkPairBuilder} as in
 * the one-type {@link LinkSampler}, with type {@code D}'s ids shifted past type {@code S}'s when
 * the two differ.
 *
 * <p>The batch's seed nodes are the pairs' endpoints, deduplicated in pair order (positives, then
 * negatives) and split by type: type {@code S}'s seeds and type {@code D}'s (one list when {@code S
 * = D}); {@link TypedMiniBatch#pairs()} index them. Blocks are sampled from both by {@link
 * TypedNeighborSampler}, whose seed type is {@code D}, with the batch's positive edges left out of
 * the blocks of {@code R} and its reverses ({@link TypedLinkExclusion}).
 */
public final class TypedLinkSampler {
  private final TypedNeighborSampler blocks;
  private final TrainEdges edges;
  private final NegativeSampler negatives;
  private final int perPositive;
  private final long seed;
  private final TypedLinkRelation link;

  /**
   * @param relation the link relation's index in the schema
   * @param reverses the indices of its reverse relations
   * @param fanouts per relation and hop ({@link TypedFanouts#parse})
   * @param negatives draws over the destination type's vertices
   * @param weighted whether the blocks draw the relations with weights in proportion to them
   *     ({@link TypedNeighborSampler})
   */
  public TypedLinkSampler(
      TypedGraph graph,
      int relation,
      int[] reverses,
      int[][] fanouts,
      long seed,
      TrainEdges edges,
      NegativeSampler negatives,
      int perPositive,
      boolean weighted) {
    if (perPositive < 1) {
      throw new IllegalArgumentException("negatives per positive " + perPositive + " < 1");
    }
    this.link = TypedLinkRelation.of(graph.schema(), relation, reverses);
    this.blocks = new TypedNeighborSampler(graph, link.dstType(), fanouts, seed, weighted);
    this.edges = edges;
    this.negatives = negatives;
    this.perPositive = perPositive;
    this.seed = seed;
  }

  /** The sampler of the blocks (its seed type is the link relation's destination type). */
  public TypedNeighborSampler blocks() {
    return blocks;
  }

  public TrainEdges edges() {
    return edges;
  }

  public Worker newWorker() {
    return new Worker();
  }

  /** Per-thread scratch. */
  public final class Worker {
    private final TypedNeighborSampler.Worker inner = blocks.newWorker(link);
    private final TypedLinkSeeds seeds = new TypedLinkSeeds(link, negatives, perPositive, seed);
    private int[] src = new int[512];
    private int[] dst = new int[512];

    private Worker() {}

    /** The batch whose positives are the training edges {@code order[from .. from+count)}. */
    public TypedMiniBatch sample(int epoch, int batch, int[] order, int from, int count) {
      if (src.length < count) {
        src = new int[count];
        dst = new int[count];
      }
      for (int i = 0; i < count; i++) {
        int e = order[from + i];
        src[i] = edges.src(e);
        dst[i] = edges.dst(e);
      }
      return inner.sampleLink(epoch, batch, seeds, src, dst, count);
    }
  }
}
