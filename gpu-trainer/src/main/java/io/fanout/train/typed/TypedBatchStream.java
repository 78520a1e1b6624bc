package io.fanout.train.typed;

import io.fanout.train.PreparedBatches;
import io.fanout.train.TrainCancelledException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/** One epoch's typed batches with their input features, in batch order. */
public interface TypedBatchStream extends PreparedBatches<TypedInputs> {
  /**
   * Hands every batch of epoch {@code epoch} of {@code epochs}, with its input rows ({@code
   * features} prepares it), to {@code step} in batch order, then recycles it; checks {@code
   * cancelled} before each step ({@link TrainCancelledException}). The stream is closed however it
   * ends.
   *
   * @return the nanoseconds spent waiting for batches ({@link #waitNanos})
   */
  static long forEach(
      TypedEpochs epochs,
      int epoch,
      TypedInputs.Preparer features,
      BooleanSupplier cancelled,
      Consumer<TypedInputs> step) {
    try (TypedBatchStream in = epochs.inputs(epoch, b -> true, features)) {
      for (TypedInputs next; (next = in.next()) != null; ) {
        if (cancelled.getAsBoolean()) {
          throw new TrainCancelledException("typed training cancelled");
        }
        step.accept(next);
        in.recycle(next);
      }
      return in.waitNanos();
    }
  }
}
