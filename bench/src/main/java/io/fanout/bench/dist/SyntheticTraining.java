package io.fanout.bench.dist;

import io.fanout.dist.Checkpoints;
import io.fanout.dist.DataParallelLoop;
import io.fanout.dist.SoftmaxRegressionReplica;
import io.fanout.spark.train.WorkerContext;
import io.fanout.spark.train.WorkerFunction;
import io.fanout.train.GradientReducer;
import java.io.Serializable;
import java.nio.file.Paths;
import org.apache.spark.SparkEnv;

/**
 * Distributed training of the self-contained {@link SoftmaxRegressionReplica} on synthetic data:
 * the workload that tests and benchmarks the barrier machinery without the GNN trainer.
 */
public final class SyntheticTraining implements WorkerFunction<SyntheticTraining.Summary> {
  /** A {@link DataParallelLoop.StepListener} that can be shipped to executors. */
  public interface Listener extends DataParallelLoop.StepListener, Serializable {}

  /** The model and data: see {@link SoftmaxRegressionReplica}. */
  public record Model(
      long seed,
      int examples,
      int features,
      int classes,
      int batchSize,
      float learningRate,
      float momentum)
      implements Serializable {
    public SoftmaxRegressionReplica replica() {
      return new SoftmaxRegressionReplica(
          seed, examples, features, classes, batchSize, learningRate, momentum);
    }

    long fingerprint(int epochs, int batchesPerStep) {
      long h = seed;
      long[] parts = {
        examples,
        features,
        classes,
        batchSize,
        Float.floatToIntBits(learningRate),
        Float.floatToIntBits(momentum),
        epochs,
        batchesPerStep
      };
      for (long p : parts) {
        h = h * 0x9E3779B97F4A7C15L + p;
        h ^= h >>> 29;
      }
      return h;
    }
  }

  /** One worker's outcome. */
  public record Summary(
      DataParallelLoop.Result result,
      double accuracy,
      float[] parameters,
      String executorId,
      int stageAttempt,
      long millis)
      implements Serializable {}

  private final Model model;
  private final int epochs;
  private final int batchesPerStep;
  private final String checkpointDir;
  private final int checkpointEvery;
  private final boolean verify;
  private final Listener listener;

  /**
   * @param batchesPerStep mini-batches per global step; 0 = one per worker
   * @param checkpointDir a directory every worker can read and rank 0 can write, or null
   */
  public SyntheticTraining(
      Model model,
      int epochs,
      int batchesPerStep,
      String checkpointDir,
      int checkpointEvery,
      boolean verify,
      Listener listener) {
    this.model = model;
    this.epochs = epochs;
    this.batchesPerStep = batchesPerStep;
    this.checkpointDir = checkpointDir;
    this.checkpointEvery = checkpointEvery;
    this.verify = verify;
    this.listener = listener;
  }

  @Override
  public Summary run(WorkerContext ctx) {
    return train(ctx.reducer(), ctx.abortCheck(), ctx.stageAttempt());
  }

  /** Trains with any reducer: {@link GradientReducer#LOCAL} gives the single-process reference. */
  public Summary train(GradientReducer reducer, Runnable abortCheck, int attempt) {
    long t0 = System.nanoTime();
    SoftmaxRegressionReplica rep = model.replica();
    int g = batchesPerStep > 0 ? batchesPerStep : reducer.worldSize();
    DataParallelLoop loop =
        new DataParallelLoop(
            rep,
            reducer,
            g,
            epochs,
            checkpointDir == null ? null : new Checkpoints(Paths.get(checkpointDir)),
            checkpointEvery,
            model.fingerprint(epochs, g),
            verify,
            abortCheck);
    if (listener != null) {
      loop.listener(listener);
    }
    DataParallelLoop.Result r = loop.run();
    SparkEnv env = SparkEnv.get();
    return new Summary(
        r,
        rep.accuracy(),
        rep.parameters().clone(),
        env == null ? "driver" : env.executorId(),
        attempt,
        (System.nanoTime() - t0) / 1_000_000);
  }
}
