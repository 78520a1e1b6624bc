package io.fanout.train.typed;

import io.fanout.graph.TypedGraph;
import io.fanout.nn.typed.ReusedBottom;
import io.fanout.nn.typed.TypedModel;
import io.fanout.sample.TypedMiniBatch;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

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
  private volatile TypedHotSet prunedFor;
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
   * Prunes each batch's bottom hop for {@code hot} on the loader thread that reads it ({@link
   * TypedHotPruner}, once per batch) and gathers the input rows of the pruned hop instead of the
   * batch's own; the step finds the pruned hop in {@link TypedInputs}.
   */
  void pruneFor(TypedHotSet hot) {
    this.prunedFor = hot;
  }

  /**
   * {@code b} prepared on the caller's thread as a loader thread prepares it ({@link #pruneFor}).
   */
  TypedInputs prepared(TypedMiniBatch b) {
    TypedInputs in = TypedInputs.of(b, null);
    new Prepare().prepare(in);
    return in;
  }

  /**
   * {@code in}'s bottom hop pruned for the hot set {@code hot} (null: none, then null): as the
   * loader pruned it (each batch is pruned once), or here when it came from a stream that does not
   * prune (its input rows are then the whole batch's: a stream that gathers them itself).
   */
  static ReusedBottom reusedOf(TypedInputs in, TypedHotSet hot) {
    if (hot == null) {
      return null;
    }
    return in.prunedFor == hot ? in.reused : TypedHotPruner.prune(in.batch(), hot);
  }

  /** Prepares a batch for the step: pruned for the hot set, if any, then its input rows. */
  private final class Prepare implements TypedInputs.Preparer {
    @Override
    public float[][] features(TypedMiniBatch b) {
      return TypedFeatures.gather(graph, model, b);
    }

    @Override
    public TypedMiniBatch prune(TypedInputs in) {
      TypedHotSet hot = prunedFor;
      if (hot != null) {
        in.reused = TypedHotPruner.prune(in.batch, hot);
        in.prunedFor = hot;
      }
      return in.reused == null ? in.batch : in.reused.block();
    }
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
            new Prepare(),
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
