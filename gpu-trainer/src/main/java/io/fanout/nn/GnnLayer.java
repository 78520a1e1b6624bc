package io.fanout.nn;

import io.fanout.tensor.Activation;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.HostOps;
import java.util.Arrays;

/**
 * One GNN layer over a {@link Block}. Parameters and gradients live in the model's flat arrays at
 * fixed offsets; activations are kept in grow-only buffers for the backward pass.
 */
abstract class GnnLayer {
  final HostOps be;
  final int index;
  final int in;
  final int out;
  final boolean last;
  final Activation act;
  final float dropout;

  /** Whether layer 0 may switch to sparse products when its input is sparse. */
  boolean sparseInput = true;

  // Saved by forward for backward.
  Block block;
  boolean dropped;
  long dropKey;
  float[] xd; // dropped-out input, numSrc x in
  float[] y; // output, numDst x out
  float[] dx; // input gradient, numSrc x in
  final SparseRows sp = new SparseRows();
  boolean sparse; // layer 0 with sparse input: xd also held as CSR in sp

  GnnLayer(HostOps be, int index, int in, int out, boolean last, Activation act, float dropout) {
    this.be = be;
    this.index = index;
    this.in = in;
    this.out = out;
    this.last = last;
    this.act = last ? Activation.NONE : act;
    this.dropout = dropout;
  }

  long flops;
  long gemmNanos;

  /** A timed, counted dense product (see {@link Backend#gemm}). */
  final void gemm(
      boolean ta,
      boolean tb,
      int m,
      int n,
      int k,
      float alpha,
      float[] a,
      int aOff,
      float[] b,
      int bOff,
      float beta,
      float[] c,
      int cOff) {
    long t0 = System.nanoTime();
    be.gemm(ta, tb, m, n, k, alpha, a, aOff, b, bOff, beta, c, cOff);
    gemmNanos += System.nanoTime() - t0;
    flops += 2L * m * n * k;
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
    dropped = train && dropout > 0f;
    if (dropped) {
      dropKey = CounterRng.key(batchKey, index);
    }
    y = Bufs.ensure(y, (long) b.numDst() * out);
    sparse = index == 0 && sparseInput && sp.build(x, b.numSrc(), in);
    if (sparse) {
      // Dropout on the non-zeros only, with the dense positions' masks: the same values as
      // dropping out the dense copy, without copying or hashing the zeros.
      if (dropped) {
        sp.dropout(in, dropout, dropKey);
      }
    } else {
      xd = Bufs.ensure(xd, n);
      System.arraycopy(x, 0, xd, 0, (int) n);
      if (dropped) {
        be.dropout(xd, (int) n, dropout, dropKey);
      }
    }
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

  /** A timed, counted sparse product {@code c = S[0..rows) b + beta c}. */
  final void spmm(int rows, float[] b, int bOff, int n, float beta, float[] c) {
    long t0 = System.nanoTime();
    be.spmm(sp.ptr, sp.col, sp.val, rows, b, bOff, n, beta, c);
    gemmNanos += System.nanoTime() - t0;
    flops += 2L * sp.ptr[rows] * n;
  }

  /** A timed, counted {@code g += S[0..rows)^T dy}. */
  final void spmmT(int rows, float[] dy, int n, float[] g, int gOff) {
    long t0 = System.nanoTime();
    be.spmmTransposed(sp.ptr, sp.col, sp.val, rows, dy, n, g, gOff);
    gemmNanos += System.nanoTime() - t0;
    flops += 2L * sp.ptr[rows] * n;
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
