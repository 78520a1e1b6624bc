package io.fanout.nn;

import io.fanout.tensor.Activation;
import io.fanout.tensor.Aggregation;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.HostOps;

/**
 * GraphSAGE with the mean aggregator: {@code h_dst = act(x_dst W_self + mean_{src in N(dst)} x_src
 * W_neigh + b)} (the sum form, equivalent to the concat form with {@code W = [W_self; W_neigh]}).
 */
final class SageLayer extends GnnLayer {
  private int wSelf;
  private int wNeigh;
  private int bias;
  private float[] agg;
  private float[] dAgg;
  private float[] cat; // [x_dst | agg], then its gradient
  private float[] z; // sparse path: xd W_neigh for all sources

  SageLayer(HostOps be, int index, int in, int out, boolean last, Activation act, float dropout) {
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
  void compute(float[] p) {
    int rows = block.numDst();
    if (sparse) {
      // Project, then aggregate: mean(x) W = mean(x W), and x W is cheap when x is sparse.
      int src = block.numSrc();
      z = Bufs.ensure(z, (long) src * out);
      spmm(src, p, wNeigh, out, 0f, z);
      be.aggregate(Aggregation.MEAN, block.indptr(), block.indices(), rows, 0, z, out, y);
      spmm(rows, p, wSelf, out, 1f, y);
      be.addBias(y, rows, out, p, bias);
      return;
    }
    agg = Bufs.ensure(agg, (long) rows * in);
    be.aggregate(Aggregation.MEAN, block.indptr(), block.indices(), rows, 0, xd, in, agg);
    // Concat form: [x_dst | mean(x_src)] (rows x 2in) times [W_self; W_neigh] (2in x out), which
    // are adjacent in the parameter array: one product with twice the inner dimension.
    cat = Bufs.ensure(cat, (long) rows * 2 * in);
    for (int r = 0; r < rows; r++) {
      System.arraycopy(xd, r * in, cat, 2 * r * in, in);
      System.arraycopy(agg, r * in, cat, (2 * r + 1) * in, in);
    }
    gemm(false, false, rows, out, 2 * in, 1f, cat, 0, p, wSelf, 0f, y, 0);
    be.addBias(y, rows, out, p, bias);
  }

  @Override
  void gradients(float[] p, float[] g, float[] dy, float[] dxd) {
    int rows = block.numDst();
    if (sparse) {
      int src = block.numSrc();
      spmmT(rows, dy, out, g, wSelf);
      z = Bufs.ensure(z, (long) src * out);
      java.util.Arrays.fill(z, 0, src * out, 0f);
      be.aggregateBackward(Aggregation.MEAN, block.indptr(), block.indices(), rows, 0, dy, out, z);
      spmmT(src, z, out, g, wNeigh);
      be.biasGrad(dy, rows, out, g, bias);
      if (dxd != null) {
        throw new IllegalStateException("the sparse path has no input gradient");
      }
      return;
    }
    gemm(true, false, 2 * in, out, rows, 1f, cat, 0, dy, 0, 1f, g, wSelf);
    be.biasGrad(dy, rows, out, g, bias);
    if (dxd != null) {
      gemm(false, true, rows, 2 * in, out, 1f, dy, 0, p, wSelf, 0f, cat, 0);
      dAgg = Bufs.ensure(dAgg, (long) rows * in);
      for (int r = 0; r < rows; r++) {
        System.arraycopy(cat, 2 * r * in, dxd, r * in, in);
        System.arraycopy(cat, (2 * r + 1) * in, dAgg, r * in, in);
      }
      be.aggregateBackward(
          Aggregation.MEAN, block.indptr(), block.indices(), rows, 0, dAgg, in, dxd);
    }
  }
}
