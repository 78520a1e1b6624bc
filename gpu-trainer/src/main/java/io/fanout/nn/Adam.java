package io.fanout.nn;

import io.fanout.tensor.HostOps;

/**
 * Adam with L2 weight decay (the decay term is added to the gradient, as in PyTorch's {@code
 * Adam}), over a model's flat parameter array. Its state is two flat moment arrays and the step
 * count, all saved in checkpoints.
 */
public final class Adam {
  public static final float BETA1 = 0.9f;
  public static final float BETA2 = 0.999f;
  public static final float EPS = 1e-8f;

  private final HostOps be;
  private final float weightDecay;
  private final float[] m;
  private final float[] v;
  private long step;

  public Adam(HostOps be, int numParams, float weightDecay) {
    this.be = be;
    this.weightDecay = weightDecay;
    this.m = new float[numParams];
    this.v = new float[numParams];
  }

  /** One update of {@code params} from {@code grads} at learning rate {@code lr}. */
  public void update(float[] params, float[] grads, float lr) {
    step++;
    be.adam(params, grads, m, v, params.length, lr, BETA1, BETA2, EPS, weightDecay, step);
  }

  public float[] firstMoment() {
    return m;
  }

  public float[] secondMoment() {
    return v;
  }

  public long step() {
    return step;
  }

  /** Restores the step count (with the moments, from a checkpoint). */
  public void setStep(long step) {
    this.step = step;
  }
}
