package io.fanout.train.typed;

import io.fanout.graph.TypedGraph;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.train.TrainCancelledException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/** One epoch's typed batches with their input features, in batch order. */
public interface TypedBatchStream extends AutoCloseable {
  /** The next batch, or null at the end; blocks while none is ready. */
  TypedInputs next();

  /** Hands a batch's holder back for reuse; it must not be used afterwards. */
  default void recycle(TypedInputs in) {}

  /** Stops whatever prepares the batches (no thread outlives the stream). */
  @Override
  default void close() {}

  /**
   * Hands every batch of epoch {@code epoch} of {@code epochs}, with its input rows ({@code
   * features} of it), to {@code step} in batch order, then recycles it; checks {@code cancelled}
   * before each step ({@link TrainCancelledException}). The stream is closed however it ends.
   */
  static void forEach(
      TypedEpochs epochs,
      int epoch,
      Function<TypedMiniBatch, float[][]> features,
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
    }
  }

  /**
   * Trains epoch {@code epoch} as {@link #forEach} steps through it, with the input rows of {@code
   * graph} that {@code cfg} reads ({@link TypedFeatures}), {@code step} training one batch; returns
   * the summed loss over the summed count of the steps' results (0 when none counted).
   */
  static double meanLoss(
      TypedEpochs epochs,
      int epoch,
      TypedGraph graph,
      TypedModelConfig cfg,
      BooleanSupplier cancelled,
      Function<TypedInputs, TypedTrainer.StepResult> step) {
    double[] sum = new double[2]; // loss, count
    forEach(
        epochs,
        epoch,
        b -> TypedFeatures.gather(graph, cfg, b),
        cancelled,
        in -> {
          TypedTrainer.StepResult r = step.apply(in);
          sum[0] += r.loss();
          sum[1] += r.labelled();
        });
    return sum[1] == 0 ? 0 : sum[0] / sum[1];
  }
}
