package io.fanout.nn;

import io.fanout.tensor.Backend;
import io.fanout.tensor.FloatTensor;

/**
 * Adam with L2 weight decay (the decay term is added to the gradient, as in PyTorch's {@code
 * Adam}), over a model's flat parameter tensor. Its state is two flat moment tensors on the same
 * backend and the step count, all saved in checkpoints.
 */
public final class Adam implements AutoCloseable {
  public static final float BETA1 = 0.9f;
  public static final float BETA2 = 0.999f;
  public static final float EPS = 1e-8f;

  private final Backend be;
  private final float weightDecay;
  private final int n;
  private final FloatTensor m;
  private final FloatTensor v;
  private long step;

  public Adam(Backend be, int numParams, float weightDecay) {
    this.be = be;
    this.weightDecay = weightDecay;
    this.n = numParams;
    this.m = be.allocFloat(numParams);
    this.v = be.allocFloat(numParams);
  }

  /** One update of {@code params} from {@code grads} at learning rate {@code lr}. */
  public void update(FloatTensor params, FloatTensor grads, float lr) {
    step++;
    be.adam(params, grads, m, v, n, lr, BETA1, BETA2, EPS, weightDecay, step);
  }

  /** A host copy of the first moments (a download, for checkpoints). */
  public float[] firstMoment() {
    float[] h = new float[n];
    be.download(m, 0, h, 0, n);
    return h;
  }

  /** A host copy of the second moments (a download, for checkpoints). */
  public float[] secondMoment() {
    float[] h = new float[n];
    be.download(v, 0, h, 0, n);
    return h;
  }

  /** Restores the moments and the step count from a checkpoint (uploads). */
  public void load(float[] first, float[] second, long step) {
    be.upload(first, 0, m, 0, n);
    be.upload(second, 0, v, 0, n);
    this.step = step;
  }

  public long step() {
    return step;
  }

  @Override
  public void close() {
    be.free(m);
    be.free(v);
  }
}
