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
  private static final long serialVersionUID = 1L;

  public final int epoch;
  public final int batch;
  public final int seedType;
  public final int layers;
  public final int hops;

  /** {@code nodes[t]}: type-local ids, length {@code layerSizes[t][hops]}. */
  public final int[][] nodes;

  /** {@code layerSizes[t][h]} for {@code h <= hops}; later entries 0. */
  public final int[][] layerSizes;

  /** {@code indptr[h-1][r]} for {@code h <= hops}. */
  public final int[][][] indptr;

  public final int[][][] indices;

  /** The seeds' labels; null until the seeds' owners have answered them. */
  public final int[] labels;

  /** The seeds' label sets (multi-label) as a CSR over {@link #labelIds}, or null. */
  public final int[] labelPtr;

  public final int[] labelIds;

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
      int[][] nodes,
      int[][] layerSizes,
      int[][][] indptr,
      int[][][] indices,
      int[] labels,
      int[] labelPtr,
      int[] labelIds,
      LinkPairs pairs) {
    this.epoch = epoch;
    this.batch = batch;
    this.seedType = seedType;
    this.layers = layers;
    this.hops = hops;
    this.nodes = nodes;
    this.layerSizes = layerSizes;
    this.indptr = indptr;
    this.indices = indices;
    this.labels = labels;
    this.labelPtr = labelPtr;
    this.labelIds = labelIds;
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
    return new TypedPartialBatch(
        epoch,
        batch,
        seedType,
        layers,
        0,
        nodes,
        sizes,
        new int[layers][relations][],
        new int[layers][relations][],
        null,
        null,
        null,
        null);
  }

  /** This batch with the seeds' labels (and label sets, or null) set. */
  public TypedPartialBatch withLabels(int[] labels, int[] labelPtr, int[] labelIds) {
    if (labels.length != layerSizes[seedType][0]) {
      throw new IllegalArgumentException(
          labels.length + " labels for " + layerSizes[seedType][0] + " seeds");
    }
    return new TypedPartialBatch(
        epoch,
        batch,
        seedType,
        layers,
        hops,
        nodes,
        layerSizes,
        indptr,
        indices,
        labels,
        labelPtr,
        labelIds,
        pairs);
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
    return new TypedMiniBatch(
        epoch,
        batch,
        seedType,
        nodes,
        layerSizes,
        indptr,
        indices,
        labels,
        labelPtr,
        labelIds,
        pairs);
  }
}
