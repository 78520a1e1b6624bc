package io.fanout.nn;

import io.fanout.tensor.Activation;
import io.fanout.tensor.Aggregation;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.HostOps;

/**
 * GCN layer in its sampled form (the "GCN aggregator" of GraphSAGE): {@code h_dst = act(mean(x_dst,
 * x_src for src in N(dst)) W + b)}, i.e. a mean over the neighbors and a self-loop.
 */
final class GcnLayer extends GnnLayer {
  private int w;
  private int bias;
  private float[] agg;
  private float[] dAgg;
  private float[] z;

  GcnLayer(HostOps be, int index, int in, int out, boolean last, Activation act, float dropout) {
    super(be, index, in, out, last, act, dropout);
  }

  @Override
  int allocate(int offset) {
    w = offset;
    bias = w + in * out;
    return bias + out;
  }

  @Override
  void init(float[] p, long key) {
    glorot(p, w, in, out, CounterRng.key(key, 0));
    java.util.Arrays.fill(p, bias, bias + out, 0f);
  }

  @Override
  void compute(float[] p) {
    int rows = block.numDst();
    if (sparse) {
      int src = block.numSrc();
      z = Bufs.ensure(z, (long) src * out);
      spmm(src, p, w, out, 0f, z);
      be.aggregate(Aggregation.MEAN, block.indptr(), block.indices(), rows, 1, z, out, y);
      be.addBias(y, rows, out, p, bias);
      return;
    }
    agg = Bufs.ensure(agg, (long) rows * in);
    be.aggregate(Aggregation.MEAN, block.indptr(), block.indices(), rows, 1, xd, in, agg);
    gemm(false, false, rows, out, in, 1f, agg, 0, p, w, 0f, y, 0);
    be.addBias(y, rows, out, p, bias);
  }

  @Override
  void gradients(float[] p, float[] g, float[] dy, float[] dxd) {
    int rows = block.numDst();
    if (sparse) {
      int src = block.numSrc();
      z = Bufs.ensure(z, (long) src * out);
      java.util.Arrays.fill(z, 0, src * out, 0f);
      be.aggregateBackward(Aggregation.MEAN, block.indptr(), block.indices(), rows, 1, dy, out, z);
      spmmT(src, z, out, g, w);
      be.biasGrad(dy, rows, out, g, bias);
      if (dxd != null) {
        throw new IllegalStateException("the sparse path has no input gradient");
      }
      return;
    }
    gemm(true, false, in, out, rows, 1f, agg, 0, dy, 0, 1f, g, w);
    be.biasGrad(dy, rows, out, g, bias);
    if (dxd != null) {
      dAgg = Bufs.ensure(dAgg, (long) rows * in);
      gemm(false, true, rows, in, out, 1f, dy, 0, p, w, 0f, dAgg, 0);
      be.aggregateBackward(
          Aggregation.MEAN, block.indptr(), block.indices(), rows, 1, dAgg, in, dxd);
    }
  }
}
