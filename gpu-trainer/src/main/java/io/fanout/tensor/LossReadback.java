package io.fanout.tensor;

/**
 * A step's summed loss and correct count, computed by work a backend has queued ({@link
 * Backend#softmaxCrossEntropyDeferred}). The first read waits for that work; a device copies both
 * values back asynchronously, so the step that queued them need not wait.
 */
public interface LossReadback {
  /** The summed loss over labeled rows, as {@link Backend#softmaxCrossEntropy} returns it. */
  double lossSum();

  /** The correct count, as {@link Backend#countCorrect} returns it. */
  int correct();

  /** Values already read back. */
  static LossReadback of(double lossSum, int correct) {
    return new LossReadback() {
      @Override
      public double lossSum() {
        return lossSum;
      }

      @Override
      public int correct() {
        return correct;
      }
    };
  }
}
