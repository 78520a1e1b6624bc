package io.fanout.dist;

/**
 * One model replica as {@link DataParallelLoop} drives it: parameters and gradients in flat
 * buffers, data cut into numbered mini-batches per epoch, an optimizer step, and a state that a
 * checkpoint saves and restores exactly.
 *
 * <p>Every replica of a job must be constructed identically (same seed, same data), so that the
 * same calls leave bit-identical parameters.
 */
public interface Replica {
  /** Number of floats in {@link #gradients()} that are exchanged. */
  int parameterCount();

  /** The live parameters ({@code parameterCount()} floats), for checksums. */
  float[] parameters();

  /** The live gradient buffer; {@link DataParallelLoop} zeroes it before each step. */
  float[] gradients();

  /** Number of mini-batches in {@code epoch}. */
  int batchCount(int epoch);

  /** Number of examples (loss terms) in mini-batch {@code batch} of {@code epoch}. */
  int batchSize(int epoch, int batch);

  /**
   * Adds the <em>sum</em> over the examples of mini-batch {@code batch} of their loss gradients to
   * {@link #gradients()} (not the mean: the loop divides by the global example count).
   */
  void accumulateGradients(int epoch, int batch);

  /** Applies one optimizer update with the mean gradient over the global batch. */
  void applyGradients(float[] meanGradients);

  /**
   * The live arrays holding everything {@link #applyGradients} depends on: the parameters first,
   * then optimizer state (e.g. momentum). A checkpoint saves them and restores them in place, bit
   * for bit; counters such as Adam's step number must be derived from the global step.
   */
  float[][] stateArrays();
}
