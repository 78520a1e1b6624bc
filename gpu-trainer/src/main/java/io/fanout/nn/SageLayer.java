package io.fanout.nn;

import io.fanout.tensor.Activation;
import io.fanout.tensor.Aggregation;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.TensorBufs;

/**
 * GraphSAGE with the mean aggregator: {@code h_dst = act(x_dst W_self + mean_{src in N(dst)} x_src
 * W_neigh + b)} (the sum form, equivalent to the concat form with {@code W = [W_self; W_neigh]}).
 */
final class SageLayer extends GnnLayer {
  private int wSelf;
  private int wNeigh;
  private int bias;
  private FloatTensor agg;
  private FloatTensor dAgg;
  private FloatTensor cat; // [x_dst | agg], then its gradient
  private FloatTensor catRows; // what the last forward multiplied: cat, or its full-block layout
  private FloatTensor z; // sparse path: xd W_neigh for all sources

  SageLayer(Backend be, int index, int in, int out, boolean last, Activation act, float dropout) {
    super(be, index, in, out, last, act, dropout);
  }

  @Override
  int allocate(int offset) {
    wSelf = offset;
    wNeigh = wSelf + in * out;
    bias = wNeigh + in * out;
    return bias + out;
  }

  @Override
  void init(float[] p, long key) {
    glorot(p, wSelf, in, out, CounterRng.key(key, 0));
    glorot(p, wNeigh, in, out, CounterRng.key(key, 1));
    java.util.Arrays.fill(p, bias, bias + out, 0f);
  }

  @Override
  void compute(FloatTensor p) {
    int rows = block.numDst();
    if (sparse && reusedInputs != null) {
      throw new IllegalStateException("reused inputs need layer 0's dense path");
    }
    if (sparse) {
      // Project, then aggregate: mean(x) W = mean(x W), and x W is cheap when x is sparse.
      int src = block.numSrc();
      z = TensorBufs.ensure(be, z, (long) src * out);
      spmm(src, p, wNeigh, out, 0f, z);
      be.aggregate(
          Aggregation.MEAN, block.indptr(), 0, block.indices(), 0, rows, 0, z, 0, out, y, 0);
      spmm(rows, p, wSelf, out, 1f, y);
      be.addBias(y, 0, rows, out, p, bias);
      return;
    }
    // Concat form: [x_dst | mean(x_src)] (rows x 2in) times [W_self; W_neigh] (2in x out), which
    // are adjacent in the parameter tensor: one product with twice the inner dimension.
    // room for the reused rows too: their gradient comes back through cat in the backward
    cat = TensorBufs.ensure(be, cat, (long) outRows() * 2 * in);
    be.copy2d(rows, in, xd, 0, in, cat, 0, 2 * in);
    if (be.stridedAggregation()) {
      be.aggregateStrided(
          Aggregation.MEAN,
          block.indptr(),
          0,
          block.indices(),
          0,
          rows,
          0,
          xd,
          0,
          in,
          in,
          cat,
          in,
          2 * in);
    } else {
      agg = TensorBufs.ensure(be, agg, (long) rows * in);
      be.aggregate(
          Aggregation.MEAN, block.indptr(), 0, block.indices(), 0, rows, 0, xd, 0, in, agg, 0);
      be.copy2d(rows, in, agg, 0, in, cat, in, 2 * in);
    }
    catRows = cat;
    if (inputsOnly) {
      return;
    }
    if (reusedInputs != null) {
      // the cached rows after the computed ones, then each at its row of the full block
      catRows = inputScatter.expand(cat, reusedInputs, 2 * in);
      rows = outRows();
    }
    gemm(false, false, rows, out, 2 * in, 1f, catRows, 0, p, wSelf, 0f, y, 0);
    be.addBias(y, 0, rows, out, p, bias);
  }

  /**
   * The dense path's last input rows {@code [x_dst | mean(x_src)]} ({@code outRows() x 2in}, on the
   * backend), valid until the next forward.
   */
  FloatTensor inputRows() {
    if (sparse) {
      throw new IllegalStateException("layer 0 ran its sparse path: no aggregated input rows");
    }
    return catRows;
  }

  @Override
  void prepareInputGradient(DeviceBlock block) {
    be.prepareAggregateBackward(block.indptr(), 0, block.indices(), 0, block.numDst(), 0);
  }

  @Override
  void gradients(FloatTensor p, FloatTensor g, FloatTensor dy, FloatTensor dxd) {
    int rows = block.numDst();
    if (sparse) {
      int src = block.numSrc();
      spmmT(rows, dy, out, g, wSelf);
      z = TensorBufs.ensure(be, z, (long) src * out);
      be.zero(z, 0, src * out);
      be.aggregateBackward(
          Aggregation.MEAN, block.indptr(), 0, block.indices(), 0, rows, 0, dy, 0, out, z, 0);
      spmmT(src, z, out, g, wNeigh);
      be.biasGrad(dy, 0, rows, out, g, bias);
      if (dxd != null) {
        throw new IllegalStateException("the sparse path has no input gradient");
      }
      return;
    }
    rows = outRows();
    gemm(true, false, 2 * in, out, rows, 1f, catRows, 0, dy, 0, 1f, g, wSelf);
    be.biasGrad(dy, 0, rows, out, g, bias);
    if (dxd != null) {
      gemm(false, true, rows, 2 * in, out, 1f, dy, 0, p, wSelf, 0f, cat, 0);
      be.copy2d(rows, in, cat, 0, 2 * in, dxd, 0, in);
      if (be.stridedAggregation()) {
        be.aggregateBackwardStrided(
            Aggregation.MEAN,
            block.indptr(),
            0,
            block.indices(),
            0,
            rows,
            0,
            cat,
            in,
            2 * in,
            in,
            dxd,
            0);
      } else {
        dAgg = TensorBufs.ensure(be, dAgg, (long) rows * in);
        be.copy2d(rows, in, cat, in, 2 * in, dAgg, 0, in);
        be.aggregateBackward(
            Aggregation.MEAN, block.indptr(), 0, block.indices(), 0, rows, 0, dAgg, 0, in, dxd, 0);
      }
    }
  }

  @Override
  void free() {
    super.free();
    for (FloatTensor t : new FloatTensor[] {agg, dAgg, cat, z}) {
      if (t != null) {
        be.free(t);
      }
    }
    agg = dAgg = cat = catRows = z = null;
  }
}
