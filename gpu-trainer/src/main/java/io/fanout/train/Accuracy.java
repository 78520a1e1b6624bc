package io.fanout.train;

/** Correct predictions out of labeled examples, with their summed loss. */
public record Accuracy(long correct, long total, double lossSum) {
  public double value() {
    return total == 0 ? 0 : (double) correct / total;
  }

  public double meanLoss() {
    return total == 0 ? 0 : lossSum / total;
  }
}
