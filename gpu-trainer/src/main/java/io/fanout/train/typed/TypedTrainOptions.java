package io.fanout.train.typed;

import io.fanout.nn.LrSchedule;
import io.fanout.tensor.MatmulPrecision;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The optimizer and loop settings of typed training.
 *
 * @param epochs epochs to train (a resumed run trains up to this count)
 * @param batchSize seeds per batch
 * @param lr Adam's learning rate, for the dense parameters and the embedding tables
 * @param weightDecay L2 decay of the dense parameters (embedding tables get none)
 * @param seed parameters, embeddings, seed order and dropout derive from it
 * @param schedule the learning rate over the epochs ({@code --schedule}, as the one-type trainer's)
 * @param precision the arithmetic of the backend's dense products ({@code --precision}); the caller
 *     sets it on the backend, this records it in the checkpoint's identity
 */
public record TypedTrainOptions(
    int epochs,
    int batchSize,
    float lr,
    float weightDecay,
    long seed,
    LrSchedule schedule,
    MatmulPrecision precision) {
  /** The identity key of {@link #precision}, recorded only for a precision other than fp32. */
  static final String PRECISION_KEY = "identity.precision";

  public TypedTrainOptions {
    if (epochs < 0
        || batchSize <= 0
        || !(lr > 0f)
        || weightDecay < 0f
        || schedule == null
        || precision == null) {
      throw new IllegalArgumentException(
          "need epochs >= 0, batch size > 0, lr > 0, weight decay >= 0, a schedule and a"
              + " precision");
    }
  }

  /** In fp32. */
  public TypedTrainOptions(
      int epochs, int batchSize, float lr, float weightDecay, long seed, LrSchedule schedule) {
    this(epochs, batchSize, lr, weightDecay, seed, schedule, MatmulPrecision.FP32);
  }

  /** A constant learning rate, in fp32. */
  public TypedTrainOptions(int epochs, int batchSize, float lr, float weightDecay, long seed) {
    this(epochs, batchSize, lr, weightDecay, seed, LrSchedule.CONSTANT);
  }

  /** The learning rate of 0-based epoch {@code epoch}. */
  public float lr(int epoch) {
    return schedule.lr(lr, epoch, epochs);
  }

  /**
   * What a resumed run must share with the checkpoint it continues; {@code identity.precision} only
   * for a precision other than fp32, so fp32 runs keep their identity (as one-type runs do).
   */
  Map<String, String> identity() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("identity.batch_size", Integer.toString(batchSize));
    m.put("identity.lr", Float.toString(lr));
    m.put("identity.weight_decay", Float.toString(weightDecay));
    m.put("identity.seed", Long.toString(seed));
    m.put("identity.schedule", schedule.id());
    if (precision != MatmulPrecision.FP32) {
      m.put(PRECISION_KEY, precision.id());
    }
    return m;
  }
}
