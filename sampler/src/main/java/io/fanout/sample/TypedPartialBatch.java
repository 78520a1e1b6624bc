package io.fanout.sample;

import java.io.Serializable;

/**
 * A typed batch between hops (of a link-prediction batch also its pairs), as shipped between the
 * stages of the partitioned sampler: per type the nodes reached so far, the blocks of the hops
 * built so far, and the seeds' labels once known. {@link TypedBatchBuilder#resume} continues it
 * exactly where {@link TypedBatchBuilder#snapshot} left off; the typed analogue of {@link
 * PartialBatch}.
 */
public final class TypedPartialBatch implements Serializable {
  private static final long serialVersionUID = 2L;

  public final int epoch;
  public final int batch;
  public final int seedType;
  public final int layers;
  public final int hops;

  /**
   * The nodes and blocks so far: {@code nodes[t]} of length {@code layerSizes[t][hops]}, {@code
   * layerSizes[t][h]} for {@code h <= hops} (later entries 0), {@code indptr[h-1][r]} and {@code
   * indices[h-1][r]} for {@code h <= hops}.
   */
  public final TypedBlocks blocks;

  /** The seeds' labels; null until the seeds' owners have answered them. */
  public final SeedLabels labels;

  /**
   * A link-prediction batch's pairs (positions in the seed lists of the link relation's two types);
   * null for node batches.
   */
  public final LinkPairs pairs;

  TypedPartialBatch(
      int epoch,
      int batch,
      int seedType,
      int layers,
      int hops,
      TypedBlocks blocks,
      SeedLabels labels,
      LinkPairs pairs) {
    this.epoch = epoch;
    this.batch = batch;
    this.seedType = seedType;
    this.layers = layers;
    this.hops = hops;
    this.blocks = blocks;
    this.labels = labels;
    this.pairs = pairs;
  }

  /** The state before hop 1: only the seeds (of {@code seedType}), labels not yet known. */
  public static TypedPartialBatch seeds(
      int epoch, int batch, int numTypes, int seedType, int layers, int relations, int[] seeds) {
    int[][] nodes = new int[numTypes][];
    int[][] sizes = new int[numTypes][layers + 1];
    for (int t = 0; t < numTypes; t++) {
      nodes[t] = t == seedType ? seeds : new int[0];
    }
    sizes[seedType][0] = seeds.length;
    TypedBlocks blocks =
        new TypedBlocks(nodes, sizes, new int[layers][relations][], new int[layers][relations][]);
    return new TypedPartialBatch(epoch, batch, seedType, layers, 0, blocks, null, null);
  }

  /** This batch with the seeds' labels set. */
  public TypedPartialBatch withLabels(SeedLabels labels) {
    int seeds = blocks.layerSizes()[seedType][0];
    if (labels.labels().length != seeds) {
      throw new IllegalArgumentException(
          labels.labels().length + " labels for " + seeds + " seeds");
    }
    return new TypedPartialBatch(epoch, batch, seedType, layers, hops, blocks, labels, pairs);
  }

  /** The finished batch; only after the last hop, with its labels. */
  public TypedMiniBatch toMiniBatch() {
    if (hops != layers || labels == null) {
      throw new IllegalStateException(
          "batch "
              + batch
              + " has "
              + hops
              + " of "
              + layers
              + " hops"
              + (labels == null ? " and no labels" : ""));
    }
    return new TypedMiniBatch(epoch, batch, seedType, blocks, labels, pairs);
  }
}
