package io.fanout.sample;

import java.io.Serializable;

/**
 * A batch between hops, as shipped between the stages of a distributed (partitioned) sampler: the
 * nodes reached so far, the blocks built so far and the seeds' labels. {@link BatchBuilder#resume}
 * continues it exactly where {@link BatchBuilder#snapshot} left off.
 */
public final class PartialBatch implements Serializable {
  private static final long serialVersionUID = 1L;

  public final int epoch;
  public final int batch;
  public final int layers;
  public final int hops;
  public final int[] nodes;
  public final int[] layerSizes;
  public final int[][] indptr;
  public final int[][] indices;
  public final int[] labels;

  /** The pairs of a link-prediction batch (local indices of its seeds); null for node batches. */
  public final LinkPairs pairs;

  PartialBatch(
      int epoch,
      int batch,
      int layers,
      int hops,
      int[] nodes,
      int[] layerSizes,
      int[][] indptr,
      int[][] indices,
      int[] labels,
      LinkPairs pairs) {
    this.epoch = epoch;
    this.batch = batch;
    this.layers = layers;
    this.hops = hops;
    this.nodes = nodes;
    this.layerSizes = layerSizes;
    this.indptr = indptr;
    this.indices = indices;
    this.labels = labels;
    this.pairs = pairs;
  }

  /** The state before hop 1: only the seeds. */
  public static PartialBatch seeds(int epoch, int batch, int layers, int[] seeds, int[] labels) {
    return seeds(epoch, batch, layers, seeds, labels, null);
  }

  /** The state before hop 1 of a link-prediction batch scoring {@code pairs}. */
  public static PartialBatch seeds(
      int epoch, int batch, int layers, int[] seeds, int[] labels, LinkPairs pairs) {
    if (seeds.length != labels.length) {
      throw new IllegalArgumentException("one label per seed");
    }
    int[] sizes = new int[layers + 1];
    sizes[0] = seeds.length;
    return new PartialBatch(
        epoch, batch, layers, 0, seeds, sizes, new int[layers][], new int[layers][], labels, pairs);
  }

  /** The finished batch; only after the last hop. */
  public MiniBatch toMiniBatch() {
    if (hops != layers) {
      throw new IllegalStateException("batch has " + hops + " of " + layers + " hops");
    }
    return new MiniBatch(epoch, batch, nodes, layerSizes, indptr, indices, labels, pairs);
  }
}
