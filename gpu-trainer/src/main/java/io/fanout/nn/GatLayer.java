package io.fanout.nn;

import io.fanout.tensor.Activation;
import io.fanout.tensor.AttentionEdges;
import io.fanout.tensor.AttentionHeads;
import io.fanout.tensor.AttentionInputs;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.FloatView;
import io.fanout.tensor.TensorBufs;

/**
 * A graph attention layer (GAT, Velickovic et al. 2018) over a sampled block: {@code z = x W} split
 * into {@code heads} heads of {@code headDim} columns; per head {@code e_ij = LeakyReLU(a_dst . z_i
 * + a_src . z_j)} over the node's sampled neighbors and itself (a self loop in every row), {@code
 * alpha} their softmax, {@code h_i = sum_j alpha_ij z_j}, plus a bias. A hidden layer concatenates
 * its heads ({@link AttentionConfig#heads} of {@code out / heads} columns); the output layer
 * averages its heads ({@link AttentionConfig#outputHeads} of {@code out} columns each, through a
 * product with a constant averaging matrix). With the residual ({@link AttentionConfig#residual})
 * every layer adds {@code x_i W_res}, the node's own input projected by a weight of its own (as
 * GraphSAGE's self term). Built from {@link Backend#headScores}, {@link Backend#attentionAggregate}
 * and dense (or, on a sparse input, sparse) products; parameters {@code [W (in x heads headDim) |
 * a_src | a_dst (heads headDim each) | b (out)]}, then {@code W_res (in x out)} with the residual.
 */
final class GatLayer extends GnnLayer {
  private final int heads;
  private final int headDim;
  private final int width; // of z: heads x headDim (out, unless the output layer averages heads)
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
  private FloatTensor heads2d; // averaged heads: rows x width, the heads side by side
  private FloatTensor averaging; // averaged heads: the constant (width x out) averaging matrix

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
    this.heads = last ? attention.outputHeads() : attention.heads();
    if (!last && out % heads != 0) {
      throw new IllegalArgumentException(
          "gat layer " + index + ": width " + out + " is not a multiple of " + heads + " heads");
    }
    this.headDim = last ? out : out / heads;
    this.width = heads * headDim;
    this.slope = attention.slope();
    this.attnDropout = attention.dropout();
    this.residual = attention.residualOn();
    if (averaged()) {
      // 1/heads at (r, r mod out): the product with it averages the heads; built with the model so
      // that a step moves nothing but its batch
      float[] m = new float[width * out];
      for (int r = 0; r < width; r++) {
        m[r * out + r % out] = 1f / heads;
      }
      averaging = be.allocFloat(m.length);
      be.upload(m, 0, averaging, 0, m.length);
    }
  }

  @Override
  int allocate(int offset) {
    w = offset;
    aSrc = w + in * width;
    aDst = aSrc + width;
    bias = aDst + width;
    wRes = bias + out;
    return residual ? wRes + in * out : wRes;
  }

  @Override
  void init(float[] p, long key) {
    glorot(p, w, in, width, CounterRng.key(key, 0));
    glorot(p, aSrc, heads, headDim, CounterRng.key(key, 1));
    glorot(p, aDst, heads, headDim, CounterRng.key(key, 2));
    java.util.Arrays.fill(p, bias, bias + out, 0f);
    if (residual) {
      glorot(p, wRes, in, out, CounterRng.key(key, 3));
    }
  }

  /** Whether the heads are averaged (the output layer with more than one head). */
  private boolean averaged() {
    return width != out;
  }

  /** The block's edges, each row with its self loop first. */
  private AttentionEdges edges() {
    return AttentionEdges.of(block.indptr(), block.indices(), block.numDst(), block.edges(), true);
  }

  /** This step's attention settings: the dropout and key {@link #compute} drew. */
  private AttentionHeads attention() {
    return new AttentionHeads(heads, headDim, slope, dropNow, attnKey);
  }

  /** The scores and source rows {@link #compute} made. */
  private AttentionInputs inputs() {
    return AttentionInputs.of(sDst, sSrc, null, z);
  }

  /**
   * {@code s}: the head scores of {@code z}'s first {@code n} rows against the vector at {@code a}.
   */
  private void headScores(FloatTensor p, int n, int a, FloatTensor s) {
    be.headScores(n, heads, headDim, FloatView.of(z), FloatView.at(p, a), FloatView.of(s));
  }

  /**
   * The backward of {@link #headScores} from {@code ds}: into {@code dz} and the vector's {@code
   * g}.
   */
  private void headScoresBackward(FloatTensor p, FloatTensor g, int n, int a, FloatTensor ds) {
    be.headScoresBackward(
        n,
        heads,
        headDim,
        FloatView.of(z),
        FloatView.at(p, a),
        FloatView.of(ds),
        FloatView.of(dz),
        FloatView.at(g, a));
  }

  @Override
  void compute(FloatTensor p) {
    int rows = block.numDst();
    int src = block.numSrc();
    z = TensorBufs.ensure(be, z, (long) src * width);
    if (sparse) {
      spmm(src, p, w, width, 0f, z);
    } else {
      gemm(false, false, src, width, in, 1f, xd, 0, p, w, 0f, z, 0);
    }
    sSrc = TensorBufs.ensure(be, sSrc, (long) src * heads);
    sDst = TensorBufs.ensure(be, sDst, (long) rows * heads);
    headScores(p, src, aSrc, sSrc);
    headScores(p, rows, aDst, sDst);
    AttentionEdges e = edges();
    alpha = TensorBufs.ensure(be, alpha, (long) Math.max(1, e.slots()) * heads);
    dropNow = training ? attnDropout : 0f;
    attnKey = CounterRng.key(layerKey, 1);
    FloatTensor att = y;
    if (averaged()) {
      heads2d = TensorBufs.ensure(be, heads2d, (long) rows * width);
      att = heads2d;
    }
    be.attentionAggregate(e, attention(), inputs(), FloatView.of(alpha), FloatView.of(att));
    if (averaged()) {
      gemm(false, false, rows, out, width, 1f, heads2d, 0, averaging, 0, 0f, y, 0);
    }
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
    FloatTensor dAtt = dy;
    if (averaged()) {
      // each head's output gradient: dy / heads, as the averaging matrix's transpose gives it
      gemm(false, true, rows, width, out, 1f, dy, 0, averaging, 0, 0f, heads2d, 0);
      dAtt = heads2d;
    }
    dz = TensorBufs.ensure(be, dz, (long) src * width);
    be.zero(dz, 0, src * width);
    dsSrc = TensorBufs.ensure(be, dsSrc, (long) src * heads);
    be.zero(dsSrc, 0, src * heads);
    dsDst = TensorBufs.ensure(be, dsDst, (long) rows * heads);
    be.zero(dsDst, 0, rows * heads);
    be.attentionAggregateBackward(
        edges(),
        attention(),
        inputs(),
        FloatView.of(alpha),
        FloatView.of(dAtt),
        AttentionInputs.of(dsDst, dsSrc, null, dz));
    headScoresBackward(p, g, src, aSrc, dsSrc);
    headScoresBackward(p, g, rows, aDst, dsDst);
    if (sparse) {
      spmmT(src, dz, width, g, w);
      if (dxd != null) {
        throw new IllegalStateException("the sparse path has no input gradient");
      }
      return;
    }
    gemm(true, false, in, width, src, 1f, xd, 0, dz, 0, 1f, g, w);
    if (dxd != null) {
      gemm(false, true, src, in, width, 1f, dz, 0, p, w, 1f, dxd, 0);
    }
  }

  @Override
  void free() {
    super.free();
    for (FloatTensor t :
        new FloatTensor[] {z, sSrc, sDst, alpha, dz, dsSrc, dsDst, heads2d, averaging}) {
      if (t != null) {
        be.free(t);
      }
    }
    z = sSrc = sDst = alpha = dz = dsSrc = dsDst = heads2d = averaging = null;
  }
}
