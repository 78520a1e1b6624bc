package io.fanout.spark.train;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.options.DistOptions;
import io.fanout.shard.ShardManifest;
import io.fanout.spark.internal.Cancels;
import io.fanout.spark.internal.JobLabels;
import io.fanout.store.DisjointPaths;
import io.fanout.store.InvalidInputException;
import io.fanout.store.OutputPaths;
import io.fanout.train.Checkpoint;
import io.fanout.train.ShardSet;
import io.fanout.train.TrainInputs;
import io.fanout.train.TrainSpec;
import java.io.PrintStream;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * The {@code train} job: one trainer in a one-task Spark job ({@link SingleWorkerTrain}), or
 * several in a barrier stage ({@link DistributedTrain}), in the caller's job group or else {@code
 * fanout-train}, so that cancelling that group stops training.
 */
public final class TrainJob {
  private TrainJob() {}

  /**
   * Trains (or resumes) the model the resolved options describe.
   *
   * @param progress where progress lines go; null for none
   * @throws RuntimeException Spark's or the trainer's, when the job group or a session tag was
   *     cancelled ({@link Cancels#isCancel}); the trainer's task has ended by then and the model
   *     dir holds only complete checkpoints
   * @throws InvalidInputException on bad input
   * @throws FanoutConfigException on bad options
   */
  public static TrainOutcome run(SparkSession spark, FanoutConf c, PrintStream progress) {
    if (TypedTrainJob.isTyped(spark, c.get(io.fanout.conf.options.TrainCommandOptions.GRAPH))) {
      return TypedTrainJob.run(spark, c, progress);
    }
    TrainSpec spec = TrainOptionsDefs.spec(c);
    OutputPaths.check(spec.output().modelDir(), "--model-dir");
    new DisjointPaths()
        .input("--graph", spec.inputs().graph())
        .input("--shards", spec.inputs().shards())
        .input("--val-shards", spec.inputs().valShards())
        .output("--model-dir", spec.output().modelDir())
        .check();
    // Bad input fails here, on the driver, rather than as a task failure Spark logs and retries.
    TrainInputs.check(spec);
    refuseExistingCheckpoint(spec);
    int workers = BarrierRunner.resolveWorkers(spark, c.get(DistOptions.WORKERS));
    DistributedTrain.Outcome o =
        launch(
            spark,
            progress,
            c,
            workers,
            new OneTypeReplica(DistributedTrain.shippedOptions(c)),
            spec.inputs().shards(),
            workers > 1 ? ShardSet.open(spec.inputs().shards()).manifest() : null,
            Checkpoint.exists(spec.output().modelDir()));
    return TrainOutcome.of(spec.output().modelDir(), o, workers);
  }

  /**
   * Runs {@code replica} (one-type or typed) in the run's job group: as a one-task job on one
   * worker, else in a barrier stage of {@code workers} workers, each on its share of the shards'
   * batches.
   *
   * @param manifest the shards' manifest (with several workers)
   * @param checkpointBefore whether the model dir holds a checkpoint before this run
   */
  static DistributedTrain.Outcome launch(
      SparkSession spark,
      PrintStream progress,
      FanoutConf c,
      int workers,
      TrainReplica replica,
      Path shards,
      ShardManifest manifest,
      boolean checkpointBefore) {
    try {
      return JobLabels.call(
          spark,
          "train",
          workers > 1 ? "training on " + workers + " workers" : "training",
          1,
          1,
          () -> {
            try (TrainStatus status = new TrainStatus(spark.sparkContext())) {
              return workers > 1
                  ? DistributedTrain.run(spark, progress, c, workers, replica, shards, manifest)
                  : SingleWorkerTrain.run(spark, progress, replica, checkpointBefore);
            }
          });
    } catch (RuntimeException e) {
      if (Cancels.isCancel(e)) {
        throw e;
      }
      throw unwrap(e);
    }
  }

  /** A model dir that already holds a checkpoint is continued only with {@code resume}. */
  private static void refuseExistingCheckpoint(TrainSpec spec) {
    if (spec.output().resume() || !Checkpoint.exists(spec.output().modelDir())) {
      return;
    }
    Checkpoint ck = Checkpoint.read(spec.output().modelDir());
    throw new InvalidInputException(
        "model dir "
            + spec.output().modelDir()
            + " already holds a checkpoint ("
            + ck.epochs()
            + " epochs of a "
            + ck.meta().get("model.kind")
            + " model); pass --resume to continue it or choose another --model-dir");
  }

  /** Spark wraps task failures; surface our own clear errors as they were thrown. */
  private static RuntimeException unwrap(RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InvalidInputException || t instanceof FanoutConfigException) {
        return (RuntimeException) t;
      }
    }
    return e;
  }
}
