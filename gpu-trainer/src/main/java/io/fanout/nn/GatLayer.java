package io.fanout.nn;

import io.fanout.tensor.Activation;
import io.fanout.tensor.AttentionEdges;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.TensorBufs;

/**
 * A graph attention layer (GAT, Velickovic et al. 2018) over a sampled block: {@code z = x W} split
 * into {@code heads} heads of {@code out / heads} columns; per head {@code e_ij = LeakyReLU(a_dst .
 * z_i + a_src . z_j)} over the node's sampled neighbors and itself (a self loop in every row),
 * {@code alpha} their softmax, {@code h_i = sum_j alpha_ij z_j}, the heads concatenated, plus a
 * bias. The output layer has one head. With the residual ({@link AttentionConfig#residual}) every
 * layer adds {@code x_i W_res}, the node's own input projected by a weight of its own (as
 * GraphSAGE's self term), so a node's representation does not have to pass through the attention.
 * Built from {@link Backend#headScores}, {@link Backend#attentionAggregate} and dense (or, on a
 * sparse input, sparse) products; parameters {@code [W (in x out) | a_src | a_dst | b]}, then
 * {@code W_res (in x out)} with the residual.
 */
final class GatLayer extends GnnLayer {
  private final int heads;
  private final int headDim;
  private final float slope;
  private final float attnDropout;
  private final boolean residual;
  private float dropNow; // the last forward's attention dropout: attnDropout in training, else 0
  private long attnKey;
  private int w;
  private int aSrc;
  private int aDst;
  private int bias;
  private int wRes;
  private FloatTensor z; // x W for every source row
  private FloatTensor sSrc;
  private FloatTensor sDst;
  private FloatTensor alpha;
  private FloatTensor dz;
  private FloatTensor dsSrc;
  private FloatTensor dsDst;

  GatLayer(
      Backend be,
      int index,
      int in,
      int out,
      boolean last,
      Activation act,
      float dropout,
      AttentionConfig attention) {
    super(be, index, in, out, last, act, dropout);
    this.heads = last ? 1 : attention.heads();
    if (out % heads != 0) {
      throw new IllegalArgumentException(
          "gat layer " + index + ": width " + out + " is not a multiple of " + heads + " heads");
    }
    this.headDim = out / heads;
    this.slope = attention.slope();
    this.attnDropout = attention.dropout();
    this.residual = attention.residual();
  }

  @Override
  int allocate(int offset) {
    w = offset;
    aSrc = w + in * out;
    aDst = aSrc + out;
    bias = aDst + out;
    wRes = bias + out;
    return residual ? wRes + in * out : wRes;
  }

  @Override
  void init(float[] p, long key) {
    glorot(p, w, in, out, CounterRng.key(key, 0));
    glorot(p, aSrc, heads, headDim, CounterRng.key(key, 1));
    glorot(p, aDst, heads, headDim, CounterRng.key(key, 2));
    java.util.Arrays.fill(p, bias, bias + out, 0f);
    if (residual) {
      glorot(p, wRes, in, out, CounterRng.key(key, 3));
    }
  }

  /** The block's edges, each row with its self loop first. */
  private AttentionEdges edges() {
    return AttentionEdges.of(block.indptr(), block.indices(), block.numDst(), block.edges(), true);
  }

  @Override
  void compute(FloatTensor p) {
    int rows = block.numDst();
    int src = block.numSrc();
    z = TensorBufs.ensure(be, z, (long) src * out);
    if (sparse) {
      spmm(src, p, w, out, 0f, z);
    } else {
      gemm(false, false, src, out, in, 1f, xd, 0, p, w, 0f, z, 0);
    }
    sSrc = TensorBufs.ensure(be, sSrc, (long) src * heads);
    sDst = TensorBufs.ensure(be, sDst, (long) rows * heads);
    be.headScores(src, heads, headDim, z, 0, p, aSrc, sSrc, 0);
    be.headScores(rows, heads, headDim, z, 0, p, aDst, sDst, 0);
    AttentionEdges e = edges();
    alpha = TensorBufs.ensure(be, alpha, (long) Math.max(1, e.slots()) * heads);
    dropNow = training ? attnDropout : 0f;
    attnKey = CounterRng.key(layerKey, 1);
    be.attentionAggregate(
        e, heads, headDim, slope, dropNow, attnKey, sDst, 0, sSrc, 0, null, 0, z, 0, alpha, 0, y,
        0);
    be.addBias(y, 0, rows, out, p, bias);
    if (residual) {
      // the destinations are the first source rows: y += x_dst W_res
      if (sparse) {
        spmm(rows, p, wRes, out, 1f, y);
      } else {
        gemm(false, false, rows, out, in, 1f, xd, 0, p, wRes, 1f, y, 0);
      }
    }
  }

  @Override
  void prepareInputGradient(DeviceBlock block) {
    // the attention's backward gathers over the same transpose as a self-weighted aggregation's
    be.prepareAggregateBackward(block.indptr(), 0, block.indices(), 0, block.numDst(), 1);
  }

  @Override
  void gradients(FloatTensor p, FloatTensor g, FloatTensor dy, FloatTensor dxd) {
    int rows = block.numDst();
    int src = block.numSrc();
    be.biasGrad(dy, 0, rows, out, g, bias);
    if (residual) {
      if (sparse) {
        spmmT(rows, dy, out, g, wRes);
      } else {
        gemm(true, false, in, out, rows, 1f, xd, 0, dy, 0, 1f, g, wRes);
        if (dxd != null) {
          gemm(false, true, rows, in, out, 1f, dy, 0, p, wRes, 1f, dxd, 0);
        }
      }
    }
    dz = TensorBufs.ensure(be, dz, (long) src * out);
    be.zero(dz, 0, src * out);
    dsSrc = TensorBufs.ensure(be, dsSrc, (long) src * heads);
    be.zero(dsSrc, 0, src * heads);
    dsDst = TensorBufs.ensure(be, dsDst, (long) rows * heads);
    be.zero(dsDst, 0, rows * heads);
    be.attentionAggregateBackward(
        edges(), heads, headDim, slope, dropNow, attnKey, sDst, 0, sSrc, 0, null, 0, z, 0, alpha, 0,
        dy, 0, dz, 0, dsDst, 0, dsSrc, 0, null, 0);
    be.headScoresBackward(src, heads, headDim, z, 0, p, aSrc, dsSrc, 0, dz, 0, g, aSrc);
    be.headScoresBackward(rows, heads, headDim, z, 0, p, aDst, dsDst, 0, dz, 0, g, aDst);
    if (sparse) {
      spmmT(src, dz, out, g, w);
      if (dxd != null) {
        throw new IllegalStateException("the sparse path has no input gradient");
      }
      return;
    }
    gemm(true, false, in, out, src, 1f, xd, 0, dz, 0, 1f, g, w);
    if (dxd != null) {
      gemm(false, true, src, in, out, 1f, dz, 0, p, w, 1f, dxd, 0);
    }
  }

  @Override
  void free() {
    super.free();
    for (FloatTensor t : new FloatTensor[] {z, sSrc, sDst, alpha, dz, dsSrc, dsDst}) {
      if (t != null) {
        be.free(t);
      }
    }
    z = sSrc = sDst = alpha = dz = dsSrc = dsDst = null;
  }
}
