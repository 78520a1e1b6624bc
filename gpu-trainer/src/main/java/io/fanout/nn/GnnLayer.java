package io.fanout.nn;

import io.fanout.tensor.Activation;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TensorBufs;

/**
 * One GNN layer over a {@link DeviceBlock}. Parameters and gradients live in the model's flat
 * tensors at fixed offsets; activations are kept in grow-only tensors of the backend for the
 * backward pass.
 */
abstract class GnnLayer {
  final Backend be;
  final int index;
  final int in;
  final int out;
  final boolean last;
  final Activation act;
  final float dropout;

  /** Whether layer 0 may switch to sparse products when its input is sparse. */
  boolean sparseInput = true;

  /**
   * Layer 0 of a model whose input is learned ({@link ModelConfig#learnedInput}): its backward
   * computes the input gradient, so its forward keeps its dropout mask as later layers do.
   */
  boolean inputGradient;

  /** Rows of room the next forward leaves in {@link #y} after its output (for cached rows). */
  int spareRows;

  /**
   * Layer 0 whose reused rows' inputs come from a cache ({@link ReusedRows#inputs()}), laid out
   * over the full block by {@link #inputScatter}; null otherwise.
   */
  ReusedRows reusedInputs;

  /** Layer 0's: the model's scatter, set once when the model is built. */
  ReusedScatter inputScatter;

  /** The next forward only prepares the input rows ({@link SageLayer#inputRows}): no product. */
  boolean inputsOnly;

  // Saved by forward for backward.
  DeviceBlock block;
  boolean training; // the last forward's mode
  long layerKey; // the last forward's key for this layer (its input dropout's)
  boolean dropped;
  long dropKey;
  FloatTensor xd; // dropped-out input, numSrc x in: xdBuf, or the input itself
  private FloatTensor xdBuf;
  FloatTensor y; // output, numDst x out
  FloatTensor dx; // input gradient, numSrc x in
  boolean sparse; // layer 0 with sparse input: the input is the CSR matrix below
  private IntTensor spPtr;
  private IntTensor spCol;
  private FloatTensor spVal;
  private int[] spHostPtr;
  private FloatTensor spDropped; // the CSR values after dropout
  private IntTensor keep; // the dense dropout's mask bits, for the backward
  private boolean keepValid;

  GnnLayer(Backend be, int index, int in, int out, boolean last, Activation act, float dropout) {
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
      FloatTensor a,
      int aOff,
      FloatTensor b,
      int bOff,
      float beta,
      FloatTensor c,
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
   * Computes the layer over the dense input {@code x} ({@code numSrc x in}) or, when {@code x} is
   * null, the batch's CSR input features; the result ({@code numDst x out}) is valid until the next
   * forward call. With {@code consumeInput} dropout overwrites the input in place (the uploaded
   * batch features, used once) instead of a copy.
   */
  final FloatTensor forward(
      FloatTensor params,
      DeviceBlock b,
      FloatTensor x,
      BatchTensors batch,
      boolean train,
      long key,
      boolean consumeInput) {
    block = b;
    long n = (long) b.numSrc() * in;
    training = train;
    layerKey = CounterRng.key(key, index);
    dropped = train && dropout > 0f;
    if (dropped) {
      dropKey = CounterRng.key(key, index);
    }
    y = TensorBufs.ensure(be, y, (long) (b.numDst() + spareRows) * out);
    sparse = x == null;
    keepValid = false;
    if (sparse) {
      spPtr = batch.csrPtr();
      spCol = batch.csrCol();
      spHostPtr = batch.hostCsrPtr();
      spVal = batch.csrVal();
      if (dropped) {
        // Dropout on the non-zeros only, with the dense positions' masks: the same values as
        // dropping out the dense copy, without copying or hashing the zeros.
        if (!consumeInput) {
          int nnz = spHostPtr[b.numSrc()];
          spDropped = TensorBufs.ensure(be, spDropped, nnz);
          be.copy(spVal, 0, spDropped, 0, nnz);
          spVal = spDropped;
        }
        be.dropoutCsr(spPtr, spCol, spVal, b.numSrc(), in, dropout, dropKey);
      }
    } else {
      // Layer 0 propagates no gradient to a store's features, so only the others keep the mask.
      IntTensor mask = null;
      if (dropped && (index > 0 || inputGradient)) {
        keep = TensorBufs.ensure(be, keep, (n + 31) / 32);
        mask = keep;
      }
      if (!dropped || consumeInput) {
        // compute() only reads its input, so without dropout (or on a consumable input) no copy.
        xd = x;
        if (dropped) {
          be.dropout(xd, 0, (int) n, dropout, dropKey, mask);
        }
      } else {
        xdBuf = TensorBufs.ensure(be, xdBuf, n);
        be.dropoutCopy(x, 0, xdBuf, 0, (int) n, dropout, dropKey, mask);
        xd = xdBuf;
      }
      keepValid = mask != null;
    }
    compute(params);
    if (!inputsOnly) {
      be.activate(act, y, 0, outRows() * out);
    }
    return y;
  }

  /** Rows of the last forward's output: the block's destinations, and any reused-input rows. */
  final int outRows() {
    return block.numDst() + (reusedInputs == null ? 0 : reusedInputs.count());
  }

  /**
   * Accumulates parameter gradients from {@code dy} (overwritten) and returns the input gradient
   * ({@code numSrc x in}) when {@code needInputGrad}, else null.
   */
  final FloatTensor backward(
      FloatTensor params, FloatTensor grads, FloatTensor dy, boolean needInputGrad) {
    int rows = outRows();
    be.activateBackward(act, y, 0, dy, 0, rows * out);
    FloatTensor g = null;
    if (needInputGrad) {
      int n = block.numSrc() * in;
      dx = TensorBufs.ensure(be, dx, n);
      be.zero(dx, 0, n);
      g = dx;
    }
    gradients(params, grads, dy, g);
    if (g != null && dropped) {
      be.dropoutBackward(g, 0, block.numSrc() * in, dropout, dropKey, keepValid ? keep : null);
    }
    return g;
  }

  /** A timed, counted sparse product {@code c = S[0..rows) b + beta c}. */
  final void spmm(int rows, FloatTensor b, int bOff, int n, float beta, FloatTensor c) {
    long t0 = System.nanoTime();
    be.spmm(spPtr, spCol, spVal, rows, b, bOff, n, beta, c, 0);
    gemmNanos += System.nanoTime() - t0;
    flops += 2L * spHostPtr[rows] * n;
  }

  /** A timed, counted {@code g += S[0..rows)^T dy}. */
  final void spmmT(int rows, FloatTensor dy, int n, FloatTensor g, int gOff) {
    long t0 = System.nanoTime();
    be.spmmTransposed(spPtr, spCol, spVal, rows, dy, 0, n, g, gOff);
    gemmNanos += System.nanoTime() - t0;
    flops += 2L * spHostPtr[rows] * n;
  }

  /** {@code y = f(xd)} before the activation. */
  abstract void compute(FloatTensor params);

  /** Parameter gradients from {@code dy}; adds the input gradient into {@code dxd} if non-null. */
  abstract void gradients(FloatTensor params, FloatTensor grads, FloatTensor dy, FloatTensor dxd);

  /**
   * Tells the backend that a backward with the input gradient over {@code block} follows ({@link
   * io.fanout.tensor.Backend#prepareAggregateBackward}), so it can start the work that depends on
   * the block alone beside the forward.
   */
  abstract void prepareInputGradient(DeviceBlock block);

  /** Frees this layer's buffers. */
  void free() {
    for (FloatTensor t : new FloatTensor[] {xdBuf, y, dx, spDropped}) {
      if (t != null) {
        be.free(t);
      }
    }
    xd = xdBuf = y = dx = spDropped = null;
    if (keep != null) {
      be.free(keep);
      keep = null;
    }
  }

  static void glorot(float[] p, int off, int fanIn, int fanOut, long key) {
    float a = (float) Math.sqrt(6.0 / (fanIn + fanOut));
    int n = fanIn * fanOut;
    for (int i = 0; i < n; i++) {
      p[off + i] = (2f * CounterRng.uniform(key, i) - 1f) * a;
    }
  }
}
