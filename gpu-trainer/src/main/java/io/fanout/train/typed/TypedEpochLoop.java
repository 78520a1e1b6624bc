package io.fanout.train.typed;

import io.fanout.graph.TypedGraph;
import io.fanout.nn.typed.TypedModel;
import io.fanout.sample.TypedMiniBatch;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The training epoch of both typed trainers: the batches of an epoch with the input rows of the
 * graph that the model reads from the host ({@link TypedFeatures}), one step each ({@link
 * TypedBatchStream#forEach}), stopped before the next step once cancelled; it sums the steps'
 * losses and the time the steps waited for their batches.
 */
final class TypedEpochLoop {
  private final TypedEpochs epochs;
  private final TypedGraph graph;
  private final TypedModel model;
  private BooleanSupplier cancelled = () -> false;
  private UnaryOperator<TypedMiniBatch> inputBatch = UnaryOperator.identity();
  private long waitNanos;

  TypedEpochLoop(TypedEpochs epochs, TypedGraph graph, TypedModel model) {
    this.epochs = epochs;
    this.graph = graph;
    this.model = model;
  }

  /** Stops training before the next step once {@code check} is true. */
  void cancelWhen(BooleanSupplier check) {
    this.cancelled = check;
  }

  /**
   * Gathers the input rows of {@code of(b)} for each batch {@code b} (its bottom hop pruned for
   * reused rows) instead of {@code b}'s own.
   */
  void inputsOf(UnaryOperator<TypedMiniBatch> of) {
    this.inputBatch = of;
  }

  /**
   * Trains epoch {@code epoch}, {@code step} training one batch; returns the summed loss over the
   * summed count of the steps' results (0 when none counted).
   */
  double meanLoss(int epoch, Function<TypedInputs, TypedTrainer.StepResult> step) {
    double[] sum = new double[2]; // loss, count
    waitNanos +=
        TypedBatchStream.forEach(
            epochs,
            epoch,
            inputBatch,
            b -> TypedFeatures.gather(graph, model, b),
            cancelled,
            in -> {
              TypedTrainer.StepResult r = step.apply(in);
              sum[0] += r.loss();
              sum[1] += r.labelled();
            });
    return sum[1] == 0 ? 0 : sum[0] / sum[1];
  }

  /** Seconds the steps so far waited for their batches (the loader's data wait). */
  double dataWaitSeconds() {
    return waitNanos / 1e9;
  }
}
