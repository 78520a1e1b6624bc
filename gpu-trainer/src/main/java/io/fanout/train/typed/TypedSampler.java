package io.fanout.train.typed;

import io.fanout.sample.TypedMiniBatch;

/**
 * Draws the typed mini-batch of some seeds (type-local ids of the target type), deterministically
 * from (epoch, batch, seeds): the typed neighbor sampler, or a test's.
 */
@FunctionalInterface
public interface TypedSampler {
  TypedMiniBatch sample(int epoch, int batch, int[] seeds);
}
