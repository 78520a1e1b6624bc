package io.fanout.train.typed;

import io.fanout.sample.TypedMiniBatch;
import io.fanout.sample.TypedNeighborSampler;

/**
 * Draws the typed mini-batch of some seeds (type-local ids of the target type), deterministically
 * from (epoch, batch, seeds): the typed neighbor sampler, or a test's.
 */
@FunctionalInterface
public interface TypedSampler {
  TypedMiniBatch sample(int epoch, int batch, int[] seeds);

  /** Batches of {@code s}, drawn on the calling thread (one worker, used by one thread). */
  static TypedSampler of(TypedNeighborSampler s) {
    TypedNeighborSampler.Worker w = s.newWorker();
    return (epoch, batch, seeds) -> w.sample(epoch, batch, seeds, 0, seeds.length);
  }
}
