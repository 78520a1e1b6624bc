package io.fanout.nn.typed;

import io.fanout.sample.TypedMiniBatch;
import io.fanout.tensor.AttentionEdges;
import io.fanout.tensor.AttentionHeads;
import io.fanout.tensor.AttentionInputs;
import io.fanout.tensor.AttentionResidual;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.FloatView;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TensorBufs;

/**
 * A Simple-HGN layer (Lv et al., KDD 2021) of {@code K} heads of {@code D = out / K} columns: with
 * {@code z = x W} (one weight for every type's rows), per head {@code k} and edge {@code j -> i} of
 * relation {@code psi}
 *
 * <pre>
 *   e_ij = LeakyReLU(a_dst . z_i + a_src . z_j + a_rel . (r_psi W_r)),   alpha = softmax_j e_ij,
 *   y_i  = sum_j alpha_ij z_j  (heads concatenated)  + x_i W_res + b
 * </pre>
 *
 * where the softmax runs over ALL in-edges of {@code i}, of every relation into its type, and a
 * self loop of its own relation (id {@code R}, after the schema's relations); {@code r_psi} are
 * learned relation-type embeddings. The residual {@code x_i W_res} is on every layer but the first
 * (as in HGB), the identity when {@code in == out}.
 *
 * <p>Per hop the layer merges the relation blocks into one CSR over the whole level matrix (every
 * destination row: its self loop, then the relations into its type in relation order, each in edge
 * order) with a relation id per edge, and runs {@link Backend#attentionAggregate} once.
 *
 * <p>Edge residual ({@link HgnSettings#attnResidual} {@code beta > 0}, as HGB): a hidden layer
 * after the first aggregates with {@code (1 - beta) alpha + beta alpha_prev}, {@code alpha_prev}
 * the previous layer's weights (its own mix where it has one, before attention dropout) of the same
 * edges ({@link EdgeResidualSlots}), restricted to the edges both blocks have and normalised again
 * per row and head ({@link Backend#attentionResidualWeights}); they carry no gradient (HGB detaches
 * them). The output layer (one head) has none, as in HGB, so a model needs three layers or more for
 * the residual to act.
 *
 * <p>Parameters: {@code W (in x out), a_src (out), a_dst (out), r (R+1 x E), W_r (E x K*E), a_rel
 * (K*E), b (out)}, then {@code W_res (in x out)} when the residual is linear.
 */
final class HgnLayer extends TypedLayer {
  private final int heads;
  private final int headDim;
  private final int relDim;
  private final int rels; // relation ids: the schema's, then the self loop
  private final boolean residual;
  private final boolean linearResidual;
  private final float beta; // the edge residual's share, 0 where this layer has none
  private HgnLayer previous; // the layer before, whose weights the edge residual reads
  private boolean holdResidual; // reuse the last forward's residual weights (gradient checks)
  private int w;
  private int aSrc;
  private int aDst;
  private int relEmb;
  private int relW;
  private int aRel;
  private int bias;
  private int wRes;
  private boolean train;
  private long attnKey;
  private int rows; // destination rows of the last forward
  private int srcRows;
  private int edges;
  private IntTensor ptr;
  private IntTensor idx;
  private IntTensor rel;
  private FloatTensor z;
  private FloatTensor zRel;
  private FloatTensor sSrc;
  private FloatTensor sDst;
  private FloatTensor sRel;
  private FloatTensor alpha;
  private IntTensor prevSlots;
  private FloatTensor resWeights; // the edge residual's weights of this hop's slots
  private FloatTensor mixed; // (1 - beta) alpha + beta resWeights: what the next layer reads
  private FloatTensor dz;
  private FloatTensor dzRel;
  private FloatTensor dsSrc;
  private FloatTensor dsDst;
  private FloatTensor dsRel;

  HgnLayer(Backend be, TypedModelConfig cfg, int index) {
    super(be, cfg, index);
    this.heads = cfg.layerHeads(index);
    this.headDim = out / heads;
    this.relDim = cfg.hgn().relationDim();
    this.rels = cfg.numRelations() + 1;
    this.residual = index > 0;
    this.linearResidual = residual && in != out;
    float b = cfg.hgn().attnResidual();
    this.beta = b > 0f && index > 0 && index < cfg.layers() - 1 ? b : 0f;
  }

  /** The layer before this one, whose attention weights this layer's edge residual reads. */
  void follows(HgnLayer layer) {
    this.previous = layer;
  }

  /**
   * With {@code hold}, the next forwards reuse the edge residual weights of the last one instead of
   * reading the previous layer's: they are constants of the gradient, so a finite-difference check
   * of the parameters holds them fixed. The batch must stay the same.
   */
  void holdResidual(boolean hold) {
    this.holdResidual = hold;
  }

  /**
   * The attention weights of the last forward that the next layer's edge residual reads: the mixed
   * weights where this layer has a residual itself, else the softmax weights (before dropout).
   */
  private FloatTensor passedOn() {
    return beta > 0f ? mixed : alpha;
  }

  @Override
  public int allocate(int offset) {
    w = offset;
    aSrc = fits((long) w + (long) in * out);
    aDst = fits((long) aSrc + out);
    relEmb = fits((long) aDst + out);
    relW = fits(relEmb + (long) rels * relDim);
    aRel = fits(relW + (long) relDim * heads * relDim);
    bias = fits(aRel + (long) heads * relDim);
    wRes = fits((long) bias + out);
    return linearResidual ? fits(wRes + (long) in * out) : wRes;
  }

  @Override
  public void init(float[] p, long key) {
    glorot(p, w, in, out, CounterRng.key(key, 0));
    glorot(p, aSrc, heads, headDim, CounterRng.key(key, 1));
    glorot(p, aDst, heads, headDim, CounterRng.key(key, 2));
    glorot(p, relEmb, rels, relDim, CounterRng.key(key, 3));
    glorot(p, relW, relDim, heads * relDim, CounterRng.key(key, 4));
    glorot(p, aRel, heads, relDim, CounterRng.key(key, 5));
    java.util.Arrays.fill(p, bias, bias + out, 0f);
    if (linearResidual) {
      glorot(p, wRes, in, out, CounterRng.key(key, 6));
    }
  }

  @Override
  public void step(boolean train, long key) {
    this.train = train;
    this.attnKey = CounterRng.key(key, 0xA77, index, 0);
  }

  private float attnDropout() {
    return train ? cfg.hgn().attnDropout() : 0f;
  }

  /**
   * Merges the relation blocks of hop {@code hop} into one CSR over level {@code hop}'s rows: row
   * {@code rowOffset(hop-1, t) + i} lists its self loop (source {@code rowOffset(hop, t) + i}),
   * then each relation into {@code t} in relation order.
   */
  private void uploadEdges(TypedBatchTensors b, int hop) {
    TypedMiniBatch mb = b.batch();
    rows = b.totalRows(hop - 1);
    srcRows = b.totalRows(hop);
    long n = rows;
    for (int r = 0; r < cfg.numRelations(); r++) {
      n += mb.indices(hop, r).length;
    }
    if (n > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a typed batch hop of more than 2^31 edges");
    }
    edges = (int) n;
    int[] p = new int[rows + 1];
    int[] ix = new int[edges];
    int[] rl = new int[edges];
    int q = 0;
    for (int t = 0; t < cfg.numTypes(); t++) {
      int[] into = cfg.relationsInto(t);
      int dstOff = b.rowOffset(hop - 1, t);
      int srcSelf = b.rowOffset(hop, t);
      for (int i = 0; i < b.rows(t, hop - 1); i++) {
        p[dstOff + i] = q;
        ix[q] = srcSelf + i;
        rl[q++] = rels - 1;
        for (int r : into) {
          int[] rp = mb.indptr(hop, r);
          int[] ri = mb.indices(hop, r);
          int srcOff = b.rowOffset(hop, cfg.relation(r).src());
          for (int e = rp[i]; e < rp[i + 1]; e++) {
            ix[q] = srcOff + ri[e];
            rl[q++] = r;
          }
        }
      }
    }
    p[rows] = q;
    ptr = TensorBufs.ensure(be, ptr, rows + 1L);
    idx = TensorBufs.ensure(be, idx, Math.max(1, edges));
    rel = TensorBufs.ensure(be, rel, Math.max(1, edges));
    be.upload(p, 0, ptr, 0, rows + 1);
    if (edges > 0) {
      be.upload(ix, 0, idx, 0, edges);
      be.upload(rl, 0, rel, 0, edges);
    }
  }

  private AttentionEdges edges() {
    return new AttentionEdges(ptr, 0, idx, 0, rel, 0, rels, rows, edges, false, 0);
  }

  @Override
  public void forward(FloatTensor p, TypedBatchTensors b, int hop, FloatTensor x, FloatTensor y) {
    uploadEdges(b, hop);
    z = TensorBufs.ensure(be, z, Math.max(1, (long) srcRows * out));
    if (srcRows > 0) {
      be.gemm(false, false, srcRows, out, in, 1f, x, 0, p, w, 0f, z, 0);
    }
    zRel = TensorBufs.ensure(be, zRel, (long) rels * heads * relDim);
    be.gemm(false, false, rels, heads * relDim, relDim, 1f, p, relEmb, p, relW, 0f, zRel, 0);
    sRel = TensorBufs.ensure(be, sRel, (long) rels * heads);
    be.headScores(
        rels, heads, relDim, FloatView.of(zRel), FloatView.at(p, aRel), FloatView.of(sRel));
    sSrc = TensorBufs.ensure(be, sSrc, Math.max(1, (long) srcRows * heads));
    sDst = TensorBufs.ensure(be, sDst, Math.max(1, (long) rows * heads));
    if (srcRows > 0) {
      be.headScores(
          srcRows, heads, headDim, FloatView.of(z), FloatView.at(p, aSrc), FloatView.of(sSrc));
    }
    for (int t = 0; t < cfg.numTypes(); t++) {
      int n = b.rows(t, hop - 1);
      if (n > 0) {
        be.headScores(
            n,
            heads,
            headDim,
            FloatView.at(z, b.rowOffset(hop, t) * out),
            FloatView.at(p, aDst),
            FloatView.at(sDst, b.rowOffset(hop - 1, t) * heads));
      }
    }
    if (rows == 0) {
      return;
    }
    alpha = TensorBufs.ensure(be, alpha, (long) Math.max(1, edges) * heads);
    AttentionResidual res = edgeResidual(b, hop);
    be.attentionAggregate(
        edges(),
        new AttentionHeads(heads, headDim, cfg.hgn().slope(), attnDropout(), attnKey),
        AttentionInputs.of(sDst, sSrc, sRel, z),
        res,
        FloatView.of(alpha),
        FloatView.of(y));
    if (res != null) {
      if ((long) edges * heads > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("a typed batch hop of more than 2^31 attention weights");
      }
      int n = edges * heads;
      mixed = TensorBufs.ensure(be, mixed, Math.max(1, n));
      be.copy(alpha, 0, mixed, 0, n);
      be.scale(n, res.keptShare(), mixed, 0);
      be.axpy(n, beta, resWeights, 0, mixed, 0);
    }
    be.addBias(y, 0, rows, out, p, bias);
    if (residual) {
      for (int t = 0; t < cfg.numTypes(); t++) {
        int n = b.rows(t, hop - 1);
        if (n == 0) {
          continue;
        }
        int xo = b.rowOffset(hop, t) * in;
        int yo = b.rowOffset(hop - 1, t) * out;
        if (linearResidual) {
          be.gemm(false, false, n, out, in, 1f, x, xo, p, wRes, 1f, y, yo);
        } else {
          be.axpy(n * out, 1f, x, xo, y, yo);
        }
      }
    }
  }

  /** The edge residual of this forward (after {@link #uploadEdges}); null where there is none. */
  private AttentionResidual edgeResidual(TypedBatchTensors b, int hop) {
    if (beta == 0f) {
      return null;
    }
    if (holdResidual && resWeights != null) {
      return new AttentionResidual(beta, FloatView.of(resWeights));
    }
    int[] slots = EdgeResidualSlots.match(b, cfg, hop);
    prevSlots = TensorBufs.ensure(be, prevSlots, Math.max(1, edges));
    resWeights = TensorBufs.ensure(be, resWeights, (long) Math.max(1, edges) * heads);
    if (edges > 0) {
      be.upload(slots, 0, prevSlots, 0, edges);
    }
    be.attentionResidualWeights(
        edges(), heads, FloatView.of(previous.passedOn()), prevSlots, FloatView.of(resWeights));
    return new AttentionResidual(beta, FloatView.of(resWeights));
  }

  @Override
  public void backward(
      FloatTensor p,
      FloatTensor g,
      TypedBatchTensors b,
      int hop,
      FloatTensor x,
      FloatTensor dy,
      FloatTensor dx) {
    if (rows == 0) {
      return;
    }
    be.biasGrad(dy, 0, rows, out, g, bias);
    if (residual) {
      for (int t = 0; t < cfg.numTypes(); t++) {
        int n = b.rows(t, hop - 1);
        if (n == 0) {
          continue;
        }
        int xo = b.rowOffset(hop, t) * in;
        int yo = b.rowOffset(hop - 1, t) * out;
        if (linearResidual) {
          be.gemm(true, false, in, out, n, 1f, x, xo, dy, yo, 1f, g, wRes);
          if (dx != null) {
            be.gemm(false, true, n, in, out, 1f, dy, yo, p, wRes, 1f, dx, xo);
          }
        } else if (dx != null) {
          be.axpy(n * out, 1f, dy, yo, dx, xo);
        }
      }
    }
    dz = TensorBufs.ensure(be, dz, (long) srcRows * out);
    be.zero(dz, 0, srcRows * out);
    dsSrc = TensorBufs.ensure(be, dsSrc, (long) srcRows * heads);
    be.zero(dsSrc, 0, srcRows * heads);
    dsDst = TensorBufs.ensure(be, dsDst, (long) rows * heads);
    be.zero(dsDst, 0, rows * heads);
    dsRel = TensorBufs.ensure(be, dsRel, (long) rels * heads);
    be.zero(dsRel, 0, rels * heads);
    be.attentionAggregateBackward(
        edges(),
        new AttentionHeads(heads, headDim, cfg.hgn().slope(), attnDropout(), attnKey),
        AttentionInputs.of(sDst, sSrc, sRel, z),
        beta > 0f ? new AttentionResidual(beta, FloatView.of(resWeights)) : null,
        FloatView.of(alpha),
        FloatView.of(dy),
        AttentionInputs.of(dsDst, dsSrc, dsRel, dz));
    be.headScoresBackward(
        srcRows,
        heads,
        headDim,
        FloatView.of(z),
        FloatView.at(p, aSrc),
        FloatView.of(dsSrc),
        FloatView.of(dz),
        FloatView.at(g, aSrc));
    for (int t = 0; t < cfg.numTypes(); t++) {
      int n = b.rows(t, hop - 1);
      if (n > 0) {
        int zo = b.rowOffset(hop, t) * out;
        be.headScoresBackward(
            n,
            heads,
            headDim,
            FloatView.at(z, zo),
            FloatView.at(p, aDst),
            FloatView.at(dsDst, b.rowOffset(hop - 1, t) * heads),
            FloatView.at(dz, zo),
            FloatView.at(g, aDst));
      }
    }
    int ze = heads * relDim;
    dzRel = TensorBufs.ensure(be, dzRel, (long) rels * ze);
    be.zero(dzRel, 0, rels * ze);
    be.headScoresBackward(
        rels,
        heads,
        relDim,
        FloatView.of(zRel),
        FloatView.at(p, aRel),
        FloatView.of(dsRel),
        FloatView.of(dzRel),
        FloatView.at(g, aRel));
    be.gemm(true, false, relDim, ze, rels, 1f, p, relEmb, dzRel, 0, 1f, g, relW);
    be.gemm(false, true, rels, relDim, ze, 1f, dzRel, 0, p, relW, 1f, g, relEmb);
    be.gemm(true, false, in, out, srcRows, 1f, x, 0, dz, 0, 1f, g, w);
    if (dx != null) {
      be.gemm(false, true, srcRows, in, out, 1f, dz, 0, p, w, 1f, dx, 0);
    }
  }

  @Override
  public void free() {
    for (FloatTensor t :
        new FloatTensor[] {
          z, zRel, sSrc, sDst, sRel, alpha, resWeights, mixed, dz, dzRel, dsSrc, dsDst, dsRel
        }) {
      TensorBufs.free(be, t);
    }
    TensorBufs.free(be, ptr);
    TensorBufs.free(be, idx);
    TensorBufs.free(be, rel);
    TensorBufs.free(be, prevSlots);
    z = zRel = sSrc = sDst = sRel = alpha = resWeights = mixed = null;
    dz = dzRel = dsSrc = dsDst = dsRel = null;
    ptr = idx = rel = prevSlots = null;
  }
}
