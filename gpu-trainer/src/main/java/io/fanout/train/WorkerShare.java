package io.fanout.train;

import java.util.function.IntPredicate;

/**
 * Which of an epoch's batches one data-parallel worker trains on, the rule every trainer shares
 * ({@link ShardedEpochData} for the one-type trainer, {@code TypedEpochs#share} for the typed
 * ones): the epoch's {@code total} batches are taken in groups of {@code workers} consecutive
 * batches; group {@code t} is global step {@code t}, and worker {@code rank} trains on batch {@code
 * t·workers + rank}. A last group of fewer than {@code workers} batches is dropped, so every worker
 * runs the same number of steps.
 *
 * @param rank this worker, in {@code [0, workers)}
 * @param workers the number of workers
 */
public record WorkerShare(int rank, int workers) {
  /** One worker: every batch. */
  public static final WorkerShare ALL = new WorkerShare(0, 1);

  public WorkerShare {
    if (workers <= 0 || rank < 0 || rank >= workers) {
      throw new IllegalArgumentException("rank " + rank + " of " + workers + " workers");
    }
  }

  /** The share of the replica that {@code reducer} connects. */
  public static WorkerShare of(GradientReducer reducer) {
    return new WorkerShare(reducer.rank(), reducer.worldSize());
  }

  /** The steps of an epoch of {@code total} batches: {@code total / workers}. */
  public int steps(int total) {
    return total / workers;
  }

  /** Whether batch {@code batch} of an epoch of {@code total} batches is this worker's. */
  public boolean keeps(int batch, int total) {
    return batch < steps(total) * workers && batch % workers == rank;
  }

  /** {@link #keeps} for an epoch of {@code total} batches. */
  public IntPredicate keeps(int total) {
    return b -> keeps(b, total);
  }
}
