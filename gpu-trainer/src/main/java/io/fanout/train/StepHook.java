package io.fanout.train;

import io.fanout.nn.BatchTensors;
import io.fanout.nn.ReusedRows;
import io.fanout.tensor.FeatureRows;
import java.util.Map;

/**
 * What {@link Trainer}'s fit loop and steps call around each step, so a technique that changes how
 * a step reads its inputs (reuse of hot embeddings, {@link HotReuseHook}) stays out of the loop.
 * {@link #NONE} changes nothing.
 */
interface StepHook {
  /** A hook that changes nothing: every batch is uploaded and trained as it comes. */
  StepHook NONE = new StepHook() {};

  /**
   * Entries this hook adds to the checkpoint's identity (none by default, so checkpoints without it
   * keep theirs).
   */
  default void addIdentity(Map<String, String> meta) {}

  /** Before the first epoch that trains, with the run's training data. */
  default void beforeFit(EpochData train, FeatureRows featureRows) {}

  /** Opens epoch {@code epoch} of {@code data} for the steps. */
  default BatchStream open(EpochData data, int epoch) {
    return data.open(epoch);
  }

  /** Before the next step, the optimizer having taken {@code step} steps. */
  default void beforeStep(long step, io.fanout.nn.GnnModel model) {}

  /** The hot set the coming step reuses rows of, or null. */
  default HotSet stepHotSet() {
    return null;
  }

  /**
   * The batch on the backend for the coming step, with what it reuses described in {@code reused};
   * null: the step uploads the batch as it is.
   */
  default BatchTensors upload(
      TrainBatch b, FeatureRows featureRows, int[] labels, int rows, ReusedRows reused) {
    return null;
  }

  /** After the step's backward, before its gradients are exchanged. */
  default void afterBackward() {}

  /** After the last epoch, normally or not (and when the trainer closes). */
  default void afterFit() {}
}
