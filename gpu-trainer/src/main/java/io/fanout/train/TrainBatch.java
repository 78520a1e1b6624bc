package io.fanout.train;

import io.fanout.features.RowCache;
import io.fanout.sample.MiniBatch;

/**
 * A mini-batch ready for the compute step: its blocks and the input features of all its nodes
 * (row-major, {@code nodes x dim}, already normalized), or none when the backend reads them itself
 * (by node id from the store, or by {@link #slots() slot} from a feature cache). The feature array
 * is a reusable buffer that may be longer than needed; hand the batch back through {@link
 * BatchStream#recycle} when done.
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

  /**
   * With a feature cache read in place ({@code --feature-access zero-copy --feature-cache P}): the
   * cache slot of each node's row ({@link RowCache#resolve}), else null.
   */
  int[] slots;

  /** The cache {@link #slots} point into, and the batch's number to release on its fence. */
  RowCache slotCache;

  long slotBatch;

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

  /** The cache slots of the nodes' rows, or null (see {@link RowCache#resolve}). */
  public int[] slots() {
    return slots;
  }

  /** Tells the cache that {@link #slots} were read and may be overwritten; a no-op without them. */
  public void releaseSlots() {
    if (slotCache != null) {
      slotCache.fence().release(slotBatch);
    }
  }
}
