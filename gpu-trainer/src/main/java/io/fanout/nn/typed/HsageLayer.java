package io.fanout.nn.typed;

import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FloatTensor;

/**
 * A heterogeneous GraphSAGE layer: {@code y_i = x_i W_self[type(i)] + b[type(i)] + (1/|R(i)|)
 * sum_{r in R(i)} mean_{j in N_r(i)} x_j W_r}, where {@code R(i)} are the relations into {@code
 * i}'s type: per-relation mean aggregation averaged over the relations, plus a per-type self term.
 *
 * <p>Parameters: per type {@code W_self (in x out), b (out)}, then per relation {@code W_r (in x
 * out)}.
 */
final class HsageLayer extends RelationMeanLayer {
  private int selfBase;
  private int rel;

  HsageLayer(Backend be, TypedModelConfig cfg, int index) {
    super(be, cfg, index);
  }

  @Override
  public int allocate(int offset) {
    selfBase = offset;
    rel = fits(selfBase + (long) cfg.numTypes() * ((long) in * out + out));
    return fits(rel + (long) cfg.numRelations() * in * out);
  }

  @Override
  public void init(float[] p, long key) {
    for (int t = 0; t < cfg.numTypes(); t++) {
      glorot(p, selfWeight(t), in, out, CounterRng.key(key, 2L * t));
      java.util.Arrays.fill(p, selfBias(t), selfBias(t) + out, 0f);
    }
    for (int r = 0; r < cfg.numRelations(); r++) {
      glorot(p, relationWeight(r), in, out, CounterRng.key(key, 2L * cfg.numTypes() + r));
    }
  }

  @Override
  int selfWeight(int t) {
    return selfBase + t * (in * out + out);
  }

  @Override
  int selfBias(int t) {
    return selfWeight(t) + in * out;
  }

  @Override
  FloatTensor relationWeights(FloatTensor params) {
    return params;
  }

  @Override
  int relationWeight(int r) {
    return rel + r * in * out;
  }

  @Override
  FloatTensor relationGradients(FloatTensor grads) {
    return grads;
  }

  @Override
  float relationScale(int t) {
    int n = cfg.relationsInto(t).length;
    return n == 0 ? 0f : 1f / n;
  }
}
