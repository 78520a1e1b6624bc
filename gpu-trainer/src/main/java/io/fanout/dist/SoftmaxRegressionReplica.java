package io.fanout.dist;

/**
 * A small, self-contained {@link Replica}: multinomial logistic regression trained with momentum
 * SGD on a synthetic, linearly separable data set generated from a seed. It exercises the
 * distributed machinery (and benchmarks it) without the GNN trainer.
 *
 * <p>Example {@code i} has features {@code x[i][j]} uniform in [-1, 1) from a counter-based hash of
 * (seed, i, j) and label {@code argmax_k x[i]·T[:,k]} for a teacher matrix {@code T} hashed from
 * (seed, j, k). Epoch {@code e} visits the examples in a Fisher-Yates permutation drawn from
 * hash(seed, e, i) and cuts it into batches of {@code batchSize}. Parameters: weights {@code
 * features × classes} (row-major) then biases, initialised from hash(seed, p) in [-0.01, 0.01).
 */
public final class SoftmaxRegressionReplica implements Replica {
  private final long seed;
  private final int examples;
  private final int features;
  private final int classes;
  private final int batchSize;
  private final float learningRate;
  private final float momentum;
  private final float[] x;
  private final int[] y;
  private final float[] params;
  private final float[] velocity;
  private final float[] grads;
  private final float[] logits;
  private final int[] order;
  private int orderEpoch = -1;

  public SoftmaxRegressionReplica(
      long seed,
      int examples,
      int features,
      int classes,
      int batchSize,
      float learningRate,
      float momentum) {
    if (examples < 0 || features <= 0 || classes < 2 || batchSize <= 0) {
      throw new IllegalArgumentException(
          "need examples >= 0, features > 0, classes >= 2, batch size > 0; got "
              + examples
              + ", "
              + features
              + ", "
              + classes
              + ", "
              + batchSize);
    }
    this.seed = seed;
    this.examples = examples;
    this.features = features;
    this.classes = classes;
    this.batchSize = batchSize;
    this.learningRate = learningRate;
    this.momentum = momentum;
    this.x = new float[examples * features];
    this.y = new int[examples];
    int p = features * classes + classes;
    this.params = new float[p];
    this.velocity = new float[p];
    this.grads = new float[p];
    this.logits = new float[classes];
    this.order = new int[examples];
    float[] teacher = new float[features * classes];
    for (int i = 0; i < teacher.length; i++) {
      teacher[i] = uniform(hash(seed, 1, i, 0)) * 2f - 1f;
    }
    for (int i = 0; i < examples; i++) {
      for (int j = 0; j < features; j++) {
        x[i * features + j] = uniform(hash(seed, 2, i, j)) * 2f - 1f;
      }
      y[i] = argmax(teacher, i);
    }
    for (int i = 0; i < p; i++) {
      params[i] = (uniform(hash(seed, 3, i, 0)) * 2f - 1f) * 0.01f;
    }
  }

  @Override
  public int parameterCount() {
    return params.length;
  }

  @Override
  public float[] parameters() {
    return params;
  }

  @Override
  public float[] gradients() {
    return grads;
  }

  @Override
  public int batchCount(int epoch) {
    return (examples + batchSize - 1) / batchSize;
  }

  @Override
  public int batchSize(int epoch, int batch) {
    return Math.min(batchSize, examples - batch * batchSize);
  }

  @Override
  public void accumulateGradients(int epoch, int batch) {
    permutation(epoch);
    int from = batch * batchSize;
    int to = from + batchSize(epoch, batch);
    int bias = features * classes;
    for (int n = from; n < to; n++) {
      int i = order[n];
      int xo = i * features;
      float max = Float.NEGATIVE_INFINITY;
      for (int k = 0; k < classes; k++) {
        float z = params[bias + k];
        for (int j = 0; j < features; j++) {
          z += x[xo + j] * params[j * classes + k];
        }
        logits[k] = z;
        max = Math.max(max, z);
      }
      float sum = 0f;
      for (int k = 0; k < classes; k++) {
        logits[k] = (float) Math.exp(logits[k] - max);
        sum += logits[k];
      }
      for (int k = 0; k < classes; k++) {
        float d = logits[k] / sum - (k == y[i] ? 1f : 0f);
        grads[bias + k] += d;
        for (int j = 0; j < features; j++) {
          grads[j * classes + k] += x[xo + j] * d;
        }
      }
    }
  }

  @Override
  public void applyGradients(float[] mean) {
    for (int i = 0; i < params.length; i++) {
      velocity[i] = momentum * velocity[i] + mean[i];
      params[i] -= learningRate * velocity[i];
    }
  }

  @Override
  public float[][] stateArrays() {
    return new float[][] {params, velocity};
  }

  /** Fraction of all examples whose predicted class is the label. */
  public double accuracy() {
    int right = 0;
    int bias = features * classes;
    for (int i = 0; i < examples; i++) {
      int best = 0;
      float bestZ = Float.NEGATIVE_INFINITY;
      for (int k = 0; k < classes; k++) {
        float z = params[bias + k];
        for (int j = 0; j < features; j++) {
          z += x[i * features + j] * params[j * classes + k];
        }
        if (z > bestZ) {
          bestZ = z;
          best = k;
        }
      }
      right += best == y[i] ? 1 : 0;
    }
    return examples == 0 ? 0 : (double) right / examples;
  }

  private int argmax(float[] teacher, int i) {
    int best = 0;
    float bestZ = Float.NEGATIVE_INFINITY;
    for (int k = 0; k < classes; k++) {
      float z = 0f;
      for (int j = 0; j < features; j++) {
        z += x[i * features + j] * teacher[j * classes + k];
      }
      if (z > bestZ) {
        bestZ = z;
        best = k;
      }
    }
    return best;
  }

  private void permutation(int epoch) {
    if (orderEpoch == epoch) {
      return;
    }
    for (int i = 0; i < examples; i++) {
      order[i] = i;
    }
    for (int i = examples - 1; i > 0; i--) {
      int j = (int) Long.remainderUnsigned(hash(seed, 4 + ((long) epoch << 8), i, 0), i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    orderEpoch = epoch;
  }

  private static float uniform(long h) {
    return (h >>> 40) * 0x1.0p-24f;
  }

  static long hash(long seed, long a, long b, long c) {
    long h = mix(seed ^ 0x9E3779B97F4A7C15L);
    h = mix(h ^ a);
    h = mix(h ^ b * 0xD1B54A32D192ED03L);
    return mix(h ^ c * 0xABC98388FB8FAC03L);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
