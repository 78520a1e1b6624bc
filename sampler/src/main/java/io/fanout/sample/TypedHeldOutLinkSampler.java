package io.fanout.sample;

import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedGraph;

/**
 * Link batches of a typed store's held-out pairs ({@code sample --task link --split val|test} on a
 * store prepared with {@code --link-relation R}, {@code R = S -> D}): the seeds are indices into
 * the split's pairs ({@link HeldOutEdges}: its positives and the negatives {@code prepare} stored
 * with them), and a batch holds its pairs as they are, labels included, with nothing drawn. Its
 * seed nodes are the pairs' endpoints deduplicated in pair order and split by type, as a training
 * batch's ({@link TypedLinkSampler}); blocks are sampled from them by {@link TypedNeighborSampler}
 * (seed type {@code D}), the batch's positives left out of the blocks of {@code R} and its reverses
 * (which do not hold held-out edges anyway). Validation scores these batches' pairs ({@code train
 * --val-shards}).
 */
public final class TypedHeldOutLinkSampler {
  private final TypedNeighborSampler blocks;
  private final HeldOutEdges pairs;
  private final long seed;
  private final TypedLinkRelation link;

  /**
   * @param relation the link relation's index in the schema
   * @param reverses the indices of its reverse relations
   * @param fanouts per relation and hop ({@link TypedFanouts#parse})
   * @param pairs the held-out pairs, type-local ids of {@code S} and {@code D}
   * @param weighted whether the blocks draw the relations with weights in proportion to them
   */
  public TypedHeldOutLinkSampler(
      TypedGraph graph,
      int relation,
      int[] reverses,
      int[][] fanouts,
      long seed,
      HeldOutEdges pairs,
      boolean weighted) {
    this.link = TypedLinkRelation.of(graph.schema(), relation, reverses);
    this.blocks = new TypedNeighborSampler(graph, link.dstType(), fanouts, seed, weighted);
    this.pairs = pairs;
    this.seed = seed;
  }

  public Worker newWorker() {
    return new Worker();
  }

  /** Per-thread scratch. */
  public final class Worker {
    private final TypedNeighborSampler.Worker inner = blocks.newWorker(link);
    private final TypedLinkSeeds seeds = new TypedLinkSeeds(link, null, 1, seed);
    private int[] src = new int[512];
    private int[] dst = new int[512];
    private byte[] label = new byte[512];

    private Worker() {}

    /** The batch of the held-out pairs {@code order[from .. from+count)}. */
    public TypedMiniBatch sample(int epoch, int batch, int[] order, int from, int count) {
      if (src.length < count) {
        src = new int[count];
        dst = new int[count];
        label = new byte[count];
      }
      for (int i = 0; i < count; i++) {
        int e = order[from + i];
        src[i] = pairs.src[e];
        dst[i] = pairs.dst[e];
        label[i] = pairs.label[e];
      }
      return inner.sampleHeldOut(epoch, batch, seeds, src, dst, label, count);
    }
  }
}
