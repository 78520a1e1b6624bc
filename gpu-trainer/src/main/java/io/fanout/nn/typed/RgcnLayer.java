package io.fanout.nn.typed;

import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.TensorBufs;

/**
 * An R-GCN layer: {@code y_i = x_i W_0 + b + sum_{r into type(i)} mean_{j in N_r(i)} x_j W_r}
 * (normalisation {@code 1/|N_r(i)|}), one self weight and bias shared by every type.
 *
 * <p>With {@code B > 0} bases, {@code W_r = sum_b a_rb V_b}: the layer builds all {@code W_r} in
 * one product {@code a (R x B) * V (B x in*out)} per forward, and its backward reduces the relation
 * weights' gradient {@code dW} into {@code dV += a^T dW} and {@code da += dW V^T}.
 *
 * <p>Parameters: {@code W_0 (in x out), b (out)}, then {@code W_r (R x in x out)}, or {@code V (B x
 * in x out), a (R x B)}.
 */
final class RgcnLayer extends RelationMeanLayer {
  private int w0;
  private int bias;
  private int rel; // W_r, or V with bases
  private int coeff; // a (bases only)
  private FloatTensor built; // W_r built from the bases
  private FloatTensor builtGrad;

  RgcnLayer(Backend be, TypedModelConfig cfg, int index) {
    super(be, cfg, index);
  }

  private int bases() {
    return cfg.bases();
  }

  @Override
  public int allocate(int offset) {
    w0 = offset;
    bias = fits((long) w0 + (long) in * out);
    rel = fits((long) bias + out);
    int rels = cfg.numRelations();
    if (bases() == 0) {
      return fits(rel + (long) rels * in * out);
    }
    coeff = fits(rel + (long) bases() * in * out);
    return fits(coeff + (long) rels * bases());
  }

  @Override
  public void init(float[] p, long key) {
    glorot(p, w0, in, out, CounterRng.key(key, 0));
    java.util.Arrays.fill(p, bias, bias + out, 0f);
    int mats = bases() == 0 ? cfg.numRelations() : bases();
    for (int r = 0; r < mats; r++) {
      glorot(p, rel + r * in * out, in, out, CounterRng.key(key, 1 + r));
    }
    if (bases() > 0) {
      glorot(p, coeff, cfg.numRelations(), bases(), CounterRng.key(key, -1));
    }
  }

  @Override
  int selfWeight(int t) {
    return w0;
  }

  @Override
  int selfBias(int t) {
    return bias;
  }

  @Override
  FloatTensor relationWeights(FloatTensor params) {
    return bases() == 0 ? params : built;
  }

  @Override
  int relationWeight(int r) {
    return (bases() == 0 ? rel : 0) + r * in * out;
  }

  @Override
  FloatTensor relationGradients(FloatTensor grads) {
    return bases() == 0 ? grads : builtGrad;
  }

  @Override
  float relationScale(int t) {
    return 1f;
  }

  @Override
  void beforeForward(FloatTensor p) {
    if (bases() == 0 || cfg.numRelations() == 0) {
      return;
    }
    int rels = cfg.numRelations();
    int n = in * out;
    built = TensorBufs.ensure(be, built, (long) rels * n);
    be.gemm(false, false, rels, n, bases(), 1f, p, coeff, p, rel, 0f, built, 0);
  }

  @Override
  void beforeBackward() {
    if (bases() == 0 || cfg.numRelations() == 0) {
      return;
    }
    long n = (long) cfg.numRelations() * in * out;
    builtGrad = TensorBufs.ensure(be, builtGrad, n);
    be.zero(builtGrad, 0, (int) n);
  }

  @Override
  void afterBackward(FloatTensor p, FloatTensor g) {
    if (bases() == 0 || cfg.numRelations() == 0) {
      return;
    }
    int rels = cfg.numRelations();
    int n = in * out;
    be.gemm(true, false, bases(), n, rels, 1f, p, coeff, builtGrad, 0, 1f, g, rel);
    be.gemm(false, true, rels, bases(), n, 1f, builtGrad, 0, p, rel, 1f, g, coeff);
  }

  @Override
  public void free() {
    super.free();
    TensorBufs.free(be, built);
    TensorBufs.free(be, builtGrad);
    built = builtGrad = null;
  }
}
