package io.fanout.spark.train;

import io.fanout.store.InvalidInputException;
import java.io.PrintStream;
import java.io.Serializable;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.sql.SparkSession;

/**
 * Training on one worker, as a one-task Spark job: in local mode the task runs in the driver's JVM,
 * on a cluster on an executor (the executor-local trainer). Running inside a task makes it
 * cancellable like any Spark job: the trainer stops before its next batch once Spark marks the task
 * killed. A retried task attempt resumes from the checkpoint the failed one left, unless the model
 * dir already held one before this run (then resuming is the caller's choice). Bad input the
 * trainer finds (such as a run that does not fit in the heap) comes back as the task's result and
 * is thrown on the driver: thrown in the task, Spark would log it as a failed task with its stack
 * trace, and a retry would fail the same way. One-type and typed runs alike ({@link TrainReplica}).
 */
final class SingleWorkerTrain implements Function<Integer, SingleWorkerTrain.Attempt> {
  private static final long serialVersionUID = 1L;

  /** What the task returns: the outcome, or the bad input it refused. */
  record Attempt(DistributedTrain.Outcome outcome, InvalidInputException refused)
      implements Serializable {}

  private final TrainReplica replica;
  private final String progressId;
  private final boolean checkpointBefore;

  private SingleWorkerTrain(TrainReplica replica, String progressId, boolean before) {
    this.replica = replica;
    this.progressId = progressId;
    this.checkpointBefore = before;
  }

  /**
   * Runs {@code replica} as the only worker.
   *
   * @param checkpointBefore whether the model dir held a checkpoint before this run
   */
  static DistributedTrain.Outcome run(
      SparkSession spark, PrintStream progress, TrainReplica replica, boolean checkpointBefore) {
    SingleWorkerTrain task =
        new SingleWorkerTrain(replica, DriverStreams.register(progress), checkpointBefore);
    try {
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      List<Attempt> out =
          TaskWatch.run(
              spark.sparkContext(), () -> jsc.parallelize(List.of(0), 1).map(task).collectAsync());
      if (out.get(0).refused() != null) {
        throw out.get(0).refused();
      }
      return out.get(0).outcome();
    } finally {
      DriverStreams.unregister(task.progressId);
    }
  }

  @Override
  public Attempt call(Integer ignored) {
    TaskContext tc = TaskContext.get();
    try {
      return new Attempt(
          replica.train(
              new ReplicaSlot(
                  tc.attemptNumber(),
                  tc.attemptNumber() > 0 && !checkpointBefore,
                  DriverStreams.forTask(progressId),
                  tc::isInterrupted,
                  ReplicaReducer.LOCAL)),
          null);
    } catch (InvalidInputException e) {
      return new Attempt(null, e);
    }
  }
}
