package io.fanout.train.typed;

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
 */
public record TypedTrainOptions(int epochs, int batchSize, float lr, float weightDecay, long seed) {
  public TypedTrainOptions {
    if (epochs < 0 || batchSize <= 0 || !(lr > 0f) || weightDecay < 0f) {
      throw new IllegalArgumentException(
          "need epochs >= 0, batch size > 0, lr > 0 and weight decay >= 0");
    }
  }

  /** What a resumed run must share with the checkpoint it continues. */
  Map<String, String> identity() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("identity.batch_size", Integer.toString(batchSize));
    m.put("identity.lr", Float.toString(lr));
    m.put("identity.weight_decay", Float.toString(weightDecay));
    m.put("identity.seed", Long.toString(seed));
    return m;
  }
}
