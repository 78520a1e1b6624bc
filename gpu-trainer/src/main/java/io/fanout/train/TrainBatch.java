package io.fanout.train;

import io.fanout.sample.MiniBatch;

/**
 * A mini-batch ready for the compute step: its blocks and the input features of all its nodes
 * (row-major, {@code nodes x dim}, already normalized). The feature array is a reusable buffer that
 * may be longer than needed; hand the batch back through {@link BatchStream#recycle} when done.
 */
public final class TrainBatch {
  MiniBatch batch;
  float[] features;
  int dim;
  final int owner;

  /**
   * The hot set a loader thread pruned this batch for ({@link HotPruner}; its features are then
   * those of {@link #pruner}'s kept sources), or null when the batch is as sampled.
   */
  HotSet prunedFor;

  HotPruner pruner;

  TrainBatch(int owner) {
    this.owner = owner;
  }

  /** A standalone batch (not from a loader's pool). */
  public static TrainBatch of(MiniBatch batch, float[] features, int dim) {
    TrainBatch t = new TrainBatch(-1);
    t.batch = batch;
    t.features = features;
    t.dim = dim;
    return t;
  }

  public MiniBatch batch() {
    return batch;
  }

  public float[] features() {
    return features;
  }

  public int dim() {
    return dim;
  }
}
