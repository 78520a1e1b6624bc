package io.fanout.train;

import java.io.PrintStream;

/**
 * What a training run reports while it runs, from the training thread: the run's start, each
 * epoch's start and end, and every step. Implementations must return quickly (they run between
 * steps) and must not throw.
 *
 * <p>{@link Trainer#fit} reports to the listener it is given and, on rank 0, to every listener
 * {@link #register registered} in the JVM: that is how a command line shows a progress line for a
 * run it does not call directly (e.g. a trainer inside a Spark task of the same JVM).
 */
public interface TrainProgress {
  /** Reports nothing. */
  TrainProgress NONE = new TrainProgress() {};

  /**
   * Epochs {@code first} to {@code epochs - 1} (0-based) are about to run; {@code first > 0} when a
   * checkpoint is resumed.
   */
  default void started(int first, int epochs) {}

  /** Epoch {@code epoch} (0-based) starts with {@code batches} steps, or -1 when not known. */
  default void epochStarted(int epoch, int epochs, int batches) {}

  /** A step is done. */
  default void batchDone(Batch batch) {}

  /** Epoch {@code stats.epoch()} is done and checkpointed; {@code validation} may be null. */
  default void epochEnded(EpochStats stats, int epochs, Accuracy validation) {}

  /**
   * {@link EarlyStop} ends training after epoch {@code epoch} (0-based), reported after its {@link
   * #epochEnded}, or when a resumed run finds it had already stopped there: {@code patience} epochs
   * in a row brought no better validation score than the one after epoch {@code bestEpoch}.
   */
  default void stoppedEarly(int epoch, int bestEpoch, int patience) {}

  /** The run ended, normally or by an exception. */
  default void finished() {}

  /**
   * One step done.
   *
   * @param epoch the epoch (0-based)
   * @param epochs epochs of the run
   * @param batch steps done in this epoch so far (1-based)
   * @param batches steps of this epoch, or -1 when not known
   * @param meanLoss mean loss over the labeled seeds of the epoch so far
   * @param examples labeled seeds of the epoch so far
   * @param seconds wall time since the epoch started
   * @param waitSeconds time the epoch waited for data so far
   */
  record Batch(
      int epoch,
      int epochs,
      int batch,
      int batches,
      double meanLoss,
      long examples,
      double seconds,
      double waitSeconds) {}

  /**
   * The plain lines the trainer has always printed: a line every {@code logEvery} steps (none for
   * 0), one per epoch, and one when resuming; {@link #NONE} when {@code out} is null.
   */
  static TrainProgress printing(PrintStream out, int logEvery) {
    return out == null ? NONE : new PrintingTrainProgress(out, logEvery);
  }

  /** Reports to {@code first}, then to {@code second}. */
  static TrainProgress both(TrainProgress first, TrainProgress second) {
    if (first == NONE) {
      return second;
    }
    if (second == NONE) {
      return first;
    }
    return new TrainProgressListeners.Both(first, second);
  }

  /**
   * Adds {@code listener} to the listeners every rank-0 {@link Trainer#fit} of this JVM reports to,
   * until the returned handle is closed.
   */
  static Registration register(TrainProgress listener) {
    return TrainProgressListeners.add(listener);
  }

  /** The {@link #register registered} listeners, as one (looked up at each call). */
  static TrainProgress registered() {
    return TrainProgressListeners.REGISTERED;
  }

  /** Removes a registered listener when closed. */
  interface Registration extends AutoCloseable {
    @Override
    void close();
  }
}
