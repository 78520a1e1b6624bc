package io.fanout.nn;

import io.fanout.tensor.Activation;
import io.fanout.tensor.Aggregation;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.TensorBufs;

/**
 * GCN layer in its sampled form (the "GCN aggregator" of GraphSAGE): {@code h_dst = act(mean(x_dst,
 * x_src for src in N(dst)) W + b)}, i.e. a mean over the neighbors and a self-loop.
 */
final class GcnLayer extends GnnLayer {
  private int w;
  private int bias;
  private FloatTensor agg;
  private FloatTensor dAgg;
  private FloatTensor z;

  GcnLayer(Backend be, int index, int in, int out, boolean last, Activation act, float dropout) {
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
  void compute(FloatTensor p) {
    int rows = block.numDst();
    if (sparse) {
      int src = block.numSrc();
      z = TensorBufs.ensure(be, z, (long) src * out);
      spmm(src, p, w, out, 0f, z);
      be.aggregate(
          Aggregation.MEAN, block.indptr(), 0, block.indices(), 0, rows, 1, z, 0, out, y, 0);
      be.addBias(y, 0, rows, out, p, bias);
      return;
    }
    agg = TensorBufs.ensure(be, agg, (long) rows * in);
    be.aggregate(
        Aggregation.MEAN, block.indptr(), 0, block.indices(), 0, rows, 1, xd, 0, in, agg, 0);
    gemm(false, false, rows, out, in, 1f, agg, 0, p, w, 0f, y, 0);
    be.addBias(y, 0, rows, out, p, bias);
  }

  @Override
  void prepareInputGradient(DeviceBlock block) {
    be.prepareAggregateBackward(block.indptr(), 0, block.indices(), 0, block.numDst(), 1);
  }

  @Override
  void gradients(FloatTensor p, FloatTensor g, FloatTensor dy, FloatTensor dxd) {
    int rows = block.numDst();
    if (sparse) {
      int src = block.numSrc();
      z = TensorBufs.ensure(be, z, (long) src * out);
      be.zero(z, 0, src * out);
      be.aggregateBackward(
          Aggregation.MEAN, block.indptr(), 0, block.indices(), 0, rows, 1, dy, 0, out, z, 0);
      spmmT(src, z, out, g, w);
      be.biasGrad(dy, 0, rows, out, g, bias);
      if (dxd != null) {
        throw new IllegalStateException("the sparse path has no input gradient");
      }
      return;
    }
    gemm(true, false, in, out, rows, 1f, agg, 0, dy, 0, 1f, g, w);
    be.biasGrad(dy, 0, rows, out, g, bias);
    if (dxd != null) {
      dAgg = TensorBufs.ensure(be, dAgg, (long) rows * in);
      gemm(false, true, rows, in, out, 1f, dy, 0, p, w, 0f, dAgg, 0);
      be.aggregateBackward(
          Aggregation.MEAN, block.indptr(), 0, block.indices(), 0, rows, 1, dAgg, 0, in, dxd, 0);
    }
  }

  @Override
  void free() {
    super.free();
    for (FloatTensor t : new FloatTensor[] {agg, dAgg, z}) {
      if (t != null) {
        be.free(t);
      }
    }
    agg = dAgg = z = null;
  }
}
