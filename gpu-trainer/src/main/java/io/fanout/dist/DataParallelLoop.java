package io.fanout.dist;

import io.fanout.train.GradientReducer;
import java.util.Arrays;

/**
 * Synchronous data-parallel training of one {@link Replica} per worker.
 *
 * <p><b>Semantics.</b> Each epoch's mini-batches (numbered {@code 0 .. batchCount-1}, each of
 * {@code B} examples except possibly the last) are grouped into global steps of {@code G} = {@code
 * batchesPerStep} consecutive batches: global step {@code t} covers batches {@code [t·G, t·G+G)}
 * (the last step of an epoch may cover fewer). With {@code N} workers ({@code G} a multiple of
 * {@code N}), worker {@code r} computes the gradient sums of the batches {@code t·G+j} of the step
 * with {@code j % N == r}, in increasing {@code j}. It scales its sum by {@code N / E}, where
 * {@code E} is the number of examples in the whole global step (every worker knows all batch
 * sizes), and the reducer's mean over the workers then yields the mean gradient over the {@code E}
 * examples. Every replica applies that same mean, so parameters stay bit-identical.
 *
 * <p>A single process ({@code N = 1}) with the same {@code G} computes the mean over the same
 * {@code E} examples; the two differ only by float rounding (summation order). With {@code G = N}
 * this is "N workers with batch B each = one process with global batch N·B".
 *
 * <p><b>Checkpoints and resumption.</b> Rank 0 publishes a checkpoint every {@code checkpointEvery}
 * global steps and after the last one. On start every worker restores the newest checkpoint and
 * continues from the step after it; the workers check that they resumed from the same step. Because
 * the batch order, the grouping into steps and the update depend only on (seed, epoch, step), a run
 * that is interrupted and resumed ends with the same parameters, bit for bit, as one that was not.
 *
 * <p><b>Verification.</b> With {@code verify}, after every step the workers exchange a checksum of
 * their parameters and fail naming the diverging ranks if they differ.
 */
public final class DataParallelLoop {
  /** Called after every completed global step, e.g. for progress or fault injection in tests. */
  @FunctionalInterface
  public interface StepListener {
    void afterStep(int rank, int epoch, int step, long globalStep, long parameterChecksum);
  }

  /** What a worker did: where it started, how many steps it ran, its final parameters' checksum. */
  public record Result(
      int rank,
      int worldSize,
      long resumedFromGlobalStep,
      long globalStepsRun,
      long finalGlobalStep,
      long finalChecksum,
      long[] stepChecksums)
      implements java.io.Serializable {}

  private final Replica replica;
  private final GradientReducer reducer;
  private final int batchesPerStep;
  private final int epochs;
  private final Checkpoints checkpoints;
  private final int checkpointEvery;
  private final long fingerprint;
  private final boolean verify;
  private final Runnable abortCheck;
  private StepListener listener = (r, e, s, g, c) -> {};

  /**
   * @param batchesPerStep G, a positive multiple of the world size
   * @param checkpoints where to save and resume; null for none
   * @param checkpointEvery global steps between checkpoints (0: only after the last step)
   * @param fingerprint identifies the job's configuration; a checkpoint of another job is refused
   * @param abortCheck called before every step; throws to abort (e.g. a killed Spark task)
   */
  public DataParallelLoop(
      Replica replica,
      GradientReducer reducer,
      int batchesPerStep,
      int epochs,
      Checkpoints checkpoints,
      int checkpointEvery,
      long fingerprint,
      boolean verify,
      Runnable abortCheck) {
    int n = reducer.worldSize();
    if (batchesPerStep <= 0 || batchesPerStep % n != 0) {
      throw new IllegalArgumentException(
          "batches per global step is "
              + batchesPerStep
              + ", expected a positive multiple of the worker count "
              + n);
    }
    if (epochs < 0 || checkpointEvery < 0) {
      throw new IllegalArgumentException(
          "epochs (" + epochs + ") and checkpoint interval (" + checkpointEvery + ") must be >= 0");
    }
    this.replica = replica;
    this.reducer = reducer;
    this.batchesPerStep = batchesPerStep;
    this.epochs = epochs;
    this.checkpoints = checkpoints;
    this.checkpointEvery = checkpointEvery;
    this.fingerprint = fingerprint;
    this.verify = verify;
    this.abortCheck = abortCheck == null ? () -> {} : abortCheck;
  }

  public DataParallelLoop listener(StepListener l) {
    this.listener = l;
    return this;
  }

  /** Global steps in {@code epoch}. */
  int stepsIn(int epoch) {
    int nb = replica.batchCount(epoch);
    return (nb + batchesPerStep - 1) / batchesPerStep;
  }

  public Result run() {
    int rank = reducer.rank();
    int n = reducer.worldSize();
    int params = replica.parameterCount();
    Checkpoints.Position pos =
        checkpoints == null
            ? Checkpoints.Position.START
            : checkpoints.restoreLatest(batchesPerStep, fingerprint, replica.stateArrays());
    if (n > 1) {
      long[] starts = reducer instanceof MeshAllReduce r ? r.allGather(pos.globalStep()) : null;
      if (starts != null) {
        for (int p = 0; p < n; p++) {
          if (starts[p] != pos.globalStep()) {
            throw new IllegalStateException(
                "rank "
                    + rank
                    + " resumed after global step "
                    + pos.globalStep()
                    + " but rank "
                    + p
                    + " after "
                    + starts[p]
                    + "; the checkpoint directory "
                    + (checkpoints == null ? "(none)" : checkpoints.dir())
                    + " must be shared by all workers");
          }
        }
      }
    }
    long resumed = pos.globalStep();
    long global = resumed;
    long run = 0;
    long[] sums = new long[16];
    int sumCount = 0;
    float[] grads = replica.gradients();
    int epoch = pos.epoch();
    int step = pos.step();
    long lastSaved = resumed;
    for (; epoch < epochs; epoch++, step = 0) {
      int steps = stepsIn(epoch);
      int nb = replica.batchCount(epoch);
      for (; step < steps; step++) {
        abortCheck.run();
        Arrays.fill(grads, 0, params, 0f);
        int first = step * batchesPerStep;
        int end = Math.min(nb, first + batchesPerStep);
        long examples = 0;
        for (int b = first; b < end; b++) {
          examples += replica.batchSize(epoch, b);
        }
        for (int b = first + rank; b < end; b += n) {
          replica.accumulateGradients(epoch, b);
        }
        if (examples > 0) {
          float scale = (float) ((double) n / examples);
          for (int i = 0; i < params; i++) {
            grads[i] *= scale;
          }
        }
        reducer.allReduceMean(grads, params);
        replica.applyGradients(grads);
        global++;
        run++;
        long checksum = ParameterChecksum.of(replica.parameters(), params);
        if (verify && n > 1) {
          verifySame(checksum, epoch, step, global);
        }
        if (sumCount == sums.length) {
          sums = Arrays.copyOf(sums, sums.length * 2);
        }
        sums[sumCount++] = checksum;
        boolean last = epoch == epochs - 1 && step == steps - 1;
        if (checkpoints != null
            && rank == 0
            && (last || (checkpointEvery > 0 && global % checkpointEvery == 0))) {
          Checkpoints.Position next =
              step + 1 < steps
                  ? new Checkpoints.Position(epoch, step + 1, global)
                  : new Checkpoints.Position(epoch + 1, 0, global);
          checkpoints.write(next, batchesPerStep, fingerprint, replica.stateArrays());
          lastSaved = global;
        }
        listener.afterStep(rank, epoch, step, global, checksum);
      }
    }
    assert lastSaved <= global;
    long finalSum = ParameterChecksum.of(replica.parameters(), params);
    return new Result(rank, n, resumed, run, global, finalSum, Arrays.copyOf(sums, sumCount));
  }

  private void verifySame(long checksum, int epoch, int step, long global) {
    if (!(reducer instanceof MeshAllReduce r)) {
      return;
    }
    long[] all = r.allGather(checksum);
    for (int p = 0; p < all.length; p++) {
      if (all[p] != all[0]) {
        throw new IllegalStateException(
            "replicas diverged after global step "
                + global
                + " (epoch "
                + epoch
                + ", step "
                + step
                + "): parameter checksum of rank 0 is "
                + Long.toHexString(all[0])
                + ", of "
                + r.describe(p)
                + " "
                + Long.toHexString(all[p])
                + "; replicas must start from the same seed and data");
      }
    }
  }
}
