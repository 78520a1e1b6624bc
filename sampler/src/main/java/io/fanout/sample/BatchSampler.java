package io.fanout.sample;

/**
 * Samples mini-batches from an epoch's seed order: {@link NeighborSampler} (seeds are vertices) or
 * {@link LinkSampler} (seeds are training edges). A batch must be a pure function of its arguments,
 * whatever thread samples it.
 */
public interface BatchSampler {
  /** A new per-thread sampling state. */
  Worker newWorker();

  /** Per-thread state of a sampler. */
  interface Worker {
    /** Samples the batch whose seeds are {@code seeds[from .. from+count)}. */
    MiniBatch sample(int epoch, int batch, int[] seeds, int from, int count);
  }
}
