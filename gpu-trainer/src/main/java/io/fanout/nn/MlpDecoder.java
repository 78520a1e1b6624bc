package io.fanout.nn;

import io.fanout.tensor.Activation;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.TensorBufs;

/**
 * The link-prediction decoder {@code score(u, v) = w2 . relu(W1 (h_u * h_v) + b1) + b2} over
 * embeddings of width {@code dim} ({@code *} elementwise, {@code W1} is {@code dim x dim}), with
 * the binary cross-entropy of {@link DotDecoder#loss}. Its parameters sit in the model's flat
 * parameter tensor after the GNN layers ({@link #allocate}), so checkpoints, the optimizer and the
 * gradient all-reduce treat them like the encoder's.
 *
 * <p>The products run on the model's {@link Backend}: the pairs' Hadamard products are formed on
 * the host from the embeddings (already downloaded for the per-pair loss), uploaded, and the two
 * dense layers and their gradients are backend calls; the input gradient comes back to the host,
 * where it is scattered to both endpoints in pair order (deterministic).
 *
 * <p>Not thread-safe: one per model.
 */
public final class MlpDecoder implements AutoCloseable {
  private final Backend be;
  private final int dim;
  private int w1;
  private int b1;
  private int w2;
  private int b2;
  private float[] hostX; // pairs x dim: h_u * h_v
  private float[] hostDx;
  private FloatTensor x;
  private FloatTensor z; // pairs x dim: relu(x W1 + b1)
  private FloatTensor s; // pairs: scores, then their gradient
  private FloatTensor dz;
  private int pairs;

  public MlpDecoder(Backend be, int dim) {
    this.be = be;
    this.dim = dim;
  }

  /** Reserves the parameters from {@code offset}; returns the next free offset. */
  public long allocate(int offset) {
    w1 = offset;
    b1 = w1 + dim * dim;
    w2 = b1 + dim;
    b2 = w2 + dim;
    return (long) b2 + 1;
  }

  /** Glorot-uniform weights and zero biases from the counter-based stream keyed by {@code key}. */
  public void init(float[] p, long key) {
    GnnLayer.glorot(p, w1, dim, dim, CounterRng.key(key, 0));
    java.util.Arrays.fill(p, b1, b1 + dim, 0f);
    GnnLayer.glorot(p, w2, dim, 1, CounterRng.key(key, 1));
    p[b2] = 0f;
  }

  public int dim() {
    return dim;
  }

  /**
   * Scores {@code out[i] = score(h[src[i]], h[dst[i]])} for {@code n} pairs of the host embeddings
   * {@code h} (rows of width {@link #dim}), keeping what {@link #backward} needs.
   */
  public void scores(FloatTensor params, float[] h, int[] src, int[] dst, int n, float[] out) {
    pairs = n;
    long m = (long) n * dim;
    hostX = Bufs.ensure(hostX, (int) m);
    for (int i = 0; i < n; i++) {
      int a = src[i] * dim;
      int b = dst[i] * dim;
      int o = i * dim;
      for (int j = 0; j < dim; j++) {
        hostX[o + j] = h[a + j] * h[b + j];
      }
    }
    if (n == 0) {
      return;
    }
    x = TensorBufs.ensure(be, x, m);
    z = TensorBufs.ensure(be, z, m);
    s = TensorBufs.ensure(be, s, n);
    be.upload(hostX, 0, x, 0, (int) m);
    be.gemm(false, false, n, dim, dim, 1f, x, 0, params, w1, 0f, z, 0);
    be.addBias(z, 0, n, dim, params, b1);
    be.activate(Activation.RELU, z, 0, (int) m);
    be.gemm(false, false, n, 1, dim, 1f, z, 0, params, w2, 0f, s, 0);
    be.addBias(s, 0, n, 1, params, b2);
    be.download(s, 0, out, 0, n);
  }

  /**
   * Accumulates into {@code grads} the decoder's parameter gradients for the pairs of the last
   * {@link #scores} call, given {@code dScore} ({@code d loss / d score} per pair), and adds the
   * embeddings' gradient to {@code dh} (host, rows of width {@link #dim}).
   */
  public void backward(
      FloatTensor params,
      FloatTensor grads,
      float[] h,
      int[] src,
      int[] dst,
      float[] dScore,
      float[] dh) {
    int n = pairs;
    if (n == 0) {
      return;
    }
    int m = n * dim;
    be.upload(dScore, 0, s, 0, n);
    // d w2 += z^T ds, d b2 += sum ds
    be.gemm(true, false, dim, 1, n, 1f, z, 0, s, 0, 1f, grads, w2);
    be.biasGrad(s, 0, n, 1, grads, b2);
    // dz = ds w2^T, through the relu (z holds its outputs)
    dz = TensorBufs.ensure(be, dz, m);
    be.gemm(false, true, n, dim, 1, 1f, s, 0, params, w2, 0f, dz, 0);
    be.activateBackward(Activation.RELU, z, 0, dz, 0, m);
    be.gemm(true, false, dim, dim, n, 1f, x, 0, dz, 0, 1f, grads, w1);
    be.biasGrad(dz, 0, n, dim, grads, b1);
    // dx = dz W1^T, into z (no longer needed)
    be.gemm(false, true, n, dim, dim, 1f, dz, 0, params, w1, 0f, z, 0);
    hostDx = Bufs.ensure(hostDx, m);
    be.download(z, 0, hostDx, 0, m);
    for (int i = 0; i < n; i++) {
      int a = src[i] * dim;
      int b = dst[i] * dim;
      int o = i * dim;
      for (int j = 0; j < dim; j++) {
        float g = hostDx[o + j];
        dh[a + j] += g * h[b + j];
        dh[b + j] += g * h[a + j];
      }
    }
  }

  @Override
  public void close() {
    TensorBufs.free(be, x);
    TensorBufs.free(be, z);
    TensorBufs.free(be, s);
    TensorBufs.free(be, dz);
    x = z = s = dz = null;
  }
}
