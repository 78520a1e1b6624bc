package io.fanout.nn;

import io.fanout.tensor.Activation;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import java.util.Arrays;

/**
 * One GNN layer over a {@link Block}. Parameters and gradients live in the model's flat arrays at
 * fixed offsets; activations are kept in grow-only buffers for the backward pass.
 */
abstract class GnnLayer {
  final Backend be;
  final int index;
  final int in;
  final int out;
  final boolean last;
  final Activation act;
  final float dropout;

  // Saved by forward for backward.
  Block block;
  boolean dropped;
  long dropKey;
  float[] xd; // dropped-out input, numSrc x in
  float[] y; // output, numDst x out
  float[] dx; // input gradient, numSrc x in

  GnnLayer(Backend be, int index, int in, int out, boolean last, Activation act, float dropout) {
    this.be = be;
    this.index = index;
    this.in = in;
    this.out = out;
    this.last = last;
    this.act = last ? Activation.NONE : act;
    this.dropout = dropout;
  }

  /** Reserves this layer's parameters; returns the next free offset. */
  abstract int allocate(int offset);

  /** Glorot-uniform weights, zero biases, from a counter-based stream keyed by {@code key}. */
  abstract void init(float[] params, long key);

  /**
   * Computes the layer over {@code x} ({@code numSrc x in}); the result ({@code numDst x out}) is
   * valid until the next forward call.
   */
  final float[] forward(float[] params, Block b, float[] x, boolean train, long batchKey) {
    block = b;
    long n = (long) b.numSrc() * in;
    xd = Bufs.ensure(xd, n);
    System.arraycopy(x, 0, xd, 0, (int) n);
    dropped = train && dropout > 0f;
    if (dropped) {
      dropKey = CounterRng.key(batchKey, index);
      be.dropout(xd, (int) n, dropout, dropKey);
    }
    y = Bufs.ensure(y, (long) b.numDst() * out);
    compute(params);
    be.activate(act, y, b.numDst() * out);
    return y;
  }

  /**
   * Accumulates parameter gradients from {@code dy} (overwritten) and returns the input gradient
   * ({@code numSrc x in}) when {@code needInputGrad}, else null.
   */
  final float[] backward(float[] params, float[] grads, float[] dy, boolean needInputGrad) {
    int rows = block.numDst();
    be.activateBackward(act, y, dy, rows * out);
    float[] g = null;
    if (needInputGrad) {
      int n = block.numSrc() * in;
      dx = Bufs.ensure(dx, n);
      Arrays.fill(dx, 0, n, 0f);
      g = dx;
    }
    gradients(params, grads, dy, g);
    if (g != null && dropped) {
      be.dropout(g, block.numSrc() * in, dropout, dropKey);
    }
    return g;
  }

  /** {@code y = f(xd)} before the activation. */
  abstract void compute(float[] params);

  /** Parameter gradients from {@code dy}; adds the input gradient into {@code dxd} if non-null. */
  abstract void gradients(float[] params, float[] grads, float[] dy, float[] dxd);

  static void glorot(float[] p, int off, int fanIn, int fanOut, long key) {
    float a = (float) Math.sqrt(6.0 / (fanIn + fanOut));
    int n = fanIn * fanOut;
    for (int i = 0; i < n; i++) {
      p[off + i] = (2f * CounterRng.uniform(key, i) - 1f) * a;
    }
  }
}
