package io.fanout.nn.typed;

import io.fanout.tensor.Aggregation;
import io.fanout.tensor.Backend;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.TensorBufs;

/**
 * A layer of the form {@code y_i = x_i S[type(i)] + c[type(i)] + s(type(i)) sum_{r into type(i)}
 * mean_{j in N_r(i)} x_j W_r}: a self term per destination type and a mean-aggregated term per
 * relation. Each relation's means are computed with {@link Backend#aggregate} from the source
 * type's rows of the input into a scratch matrix, then multiplied by {@code W_r} and accumulated
 * ({@code beta = 1}) into the destination type's rows of the output.
 */
abstract class RelationMeanLayer extends TypedLayer {
  private FloatTensor agg; // every relation's means, relation r from aggOff[r]
  private FloatTensor dAgg;
  private int[] aggOff;

  RelationMeanLayer(Backend be, TypedModelConfig cfg, int index) {
    super(be, cfg, index);
  }

  /** Offset of type {@code t}'s self weight ({@code in x out}) in the parameters. */
  abstract int selfWeight(int t);

  /** Offset of type {@code t}'s bias ({@code out}) in the parameters. */
  abstract int selfBias(int t);

  /** The tensor holding {@code W_r} for this step (the parameters, or weights built from bases). */
  abstract FloatTensor relationWeights(FloatTensor params);

  /** Offset of {@code W_r} in {@link #relationWeights}. */
  abstract int relationWeight(int r);

  /** The tensor receiving {@code dW_r} (the gradients, or a scratch matrix for the bases). */
  abstract FloatTensor relationGradients(FloatTensor grads);

  /** The factor of type {@code t}'s relation sum. */
  abstract float relationScale(int t);

  /** Before the forward's products (bases: builds {@code W_r}). */
  void beforeForward(FloatTensor params) {}

  /** Before the backward's products (bases: zeroes the scratch gradient). */
  void beforeBackward() {}

  /** After the backward's products (bases: reduces {@code dW_r} into the bases' gradients). */
  void afterBackward(FloatTensor params, FloatTensor grads) {}

  @Override
  public void forward(FloatTensor p, TypedBatchTensors b, int hop, FloatTensor x, FloatTensor y) {
    beforeForward(p);
    int rels = cfg.numRelations();
    aggOff = new int[rels];
    long n = 0;
    for (int r = 0; r < rels; r++) {
      aggOff[r] = (int) n;
      n += (long) b.rows(cfg.relation(r).dst(), hop - 1) * in;
    }
    agg = TensorBufs.ensure(be, agg, Math.max(1, n));
    FloatTensor w = relationWeights(p);
    for (int t = 0; t < cfg.numTypes(); t++) {
      int rows = b.rows(t, hop - 1);
      if (rows == 0) {
        continue;
      }
      int xo = b.rowOffset(hop, t) * in;
      int yo = b.rowOffset(hop - 1, t) * out;
      be.gemm(false, false, rows, out, in, 1f, x, xo, p, selfWeight(t), 0f, y, yo);
      be.addBias(y, yo, rows, out, p, selfBias(t));
      float scale = relationScale(t);
      for (int r : cfg.relationsInto(t)) {
        if (!b.hasEdges(hop, r)) {
          continue;
        }
        int src = cfg.relation(r).src();
        be.aggregate(
            Aggregation.MEAN,
            b.ptr(),
            b.ptrOffset(hop, r),
            b.idx(),
            b.idxOffset(hop, r),
            rows,
            0,
            x,
            b.rowOffset(hop, src) * in,
            in,
            agg,
            aggOff[r]);
        be.gemm(
            false, false, rows, out, in, scale, agg, aggOff[r], w, relationWeight(r), 1f, y, yo);
      }
    }
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
    beforeBackward();
    FloatTensor w = relationWeights(p);
    FloatTensor gw = relationGradients(g);
    for (int t = 0; t < cfg.numTypes(); t++) {
      int rows = b.rows(t, hop - 1);
      if (rows == 0) {
        continue;
      }
      int xo = b.rowOffset(hop, t) * in;
      int yo = b.rowOffset(hop - 1, t) * out;
      be.gemm(true, false, in, out, rows, 1f, x, xo, dy, yo, 1f, g, selfWeight(t));
      be.biasGrad(dy, yo, rows, out, g, selfBias(t));
      if (dx != null) {
        be.gemm(false, true, rows, in, out, 1f, dy, yo, p, selfWeight(t), 1f, dx, xo);
      }
      float scale = relationScale(t);
      for (int r : cfg.relationsInto(t)) {
        if (!b.hasEdges(hop, r)) {
          continue;
        }
        be.gemm(
            true, false, in, out, rows, scale, agg, aggOff[r], dy, yo, 1f, gw, relationWeight(r));
        if (dx != null) {
          dAgg = TensorBufs.ensure(be, dAgg, (long) rows * in);
          be.gemm(false, true, rows, in, out, scale, dy, yo, w, relationWeight(r), 0f, dAgg, 0);
          int src = cfg.relation(r).src();
          be.aggregateBackward(
              Aggregation.MEAN,
              b.ptr(),
              b.ptrOffset(hop, r),
              b.idx(),
              b.idxOffset(hop, r),
              rows,
              0,
              dAgg,
              0,
              in,
              dx,
              b.rowOffset(hop, src) * in);
        }
      }
    }
    afterBackward(p, g);
  }

  @Override
  public void free() {
    TensorBufs.free(be, agg);
    TensorBufs.free(be, dAgg);
    agg = dAgg = null;
  }
}
