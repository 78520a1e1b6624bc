package io.fanout.tensor;

/**
 * A {@link Tensor} of 32-bit ints (CSR offsets, indices, labels), from {@link Backend#allocInt}.
 */
public interface IntTensor extends Tensor {}
