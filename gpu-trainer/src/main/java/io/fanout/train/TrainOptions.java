package io.fanout.train;

import io.fanout.nn.LrSchedule;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Optimization settings of a training run.
 *
 * @param epochs epochs to train in total (a resumed run continues up to this count)
 * @param lr base learning rate
 * @param weightDecay L2 weight decay added to the gradients
 * @param schedule learning rate schedule over the epochs
 * @param seed seeds parameter initialization and dropout masks
 */
public record TrainOptions(
    int epochs, float lr, float weightDecay, LrSchedule schedule, long seed) {

  public TrainOptions {
    if (epochs <= 0) {
      throw new IllegalArgumentException("epochs must be positive, got " + epochs);
    }
    if (!(lr > 0f)) {
      throw new IllegalArgumentException("lr must be positive, got " + lr);
    }
    if (!(weightDecay >= 0f)) {
      throw new IllegalArgumentException("weight decay must be >= 0, got " + weightDecay);
    }
  }

  Map<String, String> toMap() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("epochs", Integer.toString(epochs));
    m.put("lr", Float.toString(lr));
    m.put("weight_decay", Float.toString(weightDecay));
    m.put("schedule", schedule.id());
    m.put("seed", Long.toString(seed));
    return m;
  }
}
