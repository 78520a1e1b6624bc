package io.fanout.nn.typed;

import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FloatTensor;

/**
 * One layer of a typed model, from level {@code hop} (input, {@code in} wide) to level {@code
 * hop-1} (output, {@code out} wide) of a {@link TypedBatchTensors} layout: every type's rows in one
 * matrix per level, at the type's row offset. The model applies dropout to the input and the
 * activation to the output around it; a layer computes the affine, relation-aware part only.
 *
 * <p>Parameters live in the model's flat tensor at offsets the layer reserves in {@link #allocate};
 * gradients at the same offsets of the gradient tensor. Implementations keep what their backward
 * needs between {@link #forward} and {@link #backward} and are deterministic (fixed order of
 * accumulation, no atomics).
 */
public abstract class TypedLayer {
  protected final Backend be;
  protected final TypedModelConfig cfg;
  protected final int index;
  protected final int in;
  protected final int out;

  protected TypedLayer(Backend be, TypedModelConfig cfg, int index) {
    this.be = be;
    this.cfg = cfg;
    this.index = index;
    this.in = cfg.layerIn(index);
    this.out = cfg.layerOut(index);
  }

  /** Reserves this layer's parameters from {@code offset}; returns the next free offset. */
  public abstract int allocate(int offset);

  /** Initial parameters, a pure function of {@code key}. */
  public abstract void init(float[] params, long key);

  /**
   * Overwrites {@code y} (level {@code hop-1}: {@code b.totalRows(hop-1) x out}) with the layer of
   * {@code x} (level {@code hop}, {@code b.totalRows(hop) x in}), before the activation.
   */
  public abstract void forward(
      FloatTensor params, TypedBatchTensors b, int hop, FloatTensor x, FloatTensor y);

  /**
   * Accumulates the parameter gradients of the output gradient {@code dy} (read only) into {@code
   * grads} and, when {@code dx} is non-null, the input gradient into {@code dx} (level {@code
   * hop}); {@code x} is the input of the last {@link #forward}.
   */
  public abstract void backward(
      FloatTensor params,
      FloatTensor grads,
      TypedBatchTensors b,
      int hop,
      FloatTensor x,
      FloatTensor dy,
      FloatTensor dx);

  /**
   * Called before each {@link #forward}: whether it trains and the batch's key for the layer's own
   * randomness (attention dropout); the default ignores both.
   */
  public void step(boolean train, long key) {}

  /** Frees the layer's scratch tensors. */
  public abstract void free();

  /** Glorot-uniform {@code fanIn x fanOut} weights at {@code p[off ..)} from {@code key}. */
  protected static void glorot(float[] p, int off, int fanIn, int fanOut, long key) {
    float a = (float) Math.sqrt(6.0 / (fanIn + fanOut));
    int n = fanIn * fanOut;
    for (int i = 0; i < n; i++) {
      p[off + i] = (2f * CounterRng.uniform(key, i) - 1f) * a;
    }
  }

  /** Checks that a parameter offset still fits one array. */
  protected static int fits(long next) {
    if (next > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("the typed model has more than 2^31 parameters");
    }
    return (int) next;
  }
}
