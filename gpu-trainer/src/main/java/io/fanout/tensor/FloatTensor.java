package io.fanout.tensor;

/** A {@link Tensor} of 32-bit floats, allocated by {@link Backend#allocFloat}. */
public interface FloatTensor extends Tensor {}
