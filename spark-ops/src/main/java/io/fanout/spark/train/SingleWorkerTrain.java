package io.fanout.spark.train;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.store.InvalidInputException;
import io.fanout.train.Checkpoint;
import io.fanout.train.GradientReducer;
import io.fanout.train.TrainRun;
import io.fanout.train.TrainSpec;
import java.io.PrintStream;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
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
 * trace, and a retry would fail the same way.
 */
final class SingleWorkerTrain implements Function<Integer, SingleWorkerTrain.Attempt> {
  private static final long serialVersionUID = 1L;

  /** What the task returns: the outcome, or the bad input it refused. */
  record Attempt(DistributedTrain.Outcome outcome, InvalidInputException refused)
      implements Serializable {}

  private final Map<String, String> options;
  private final String progressId;
  private final boolean checkpointBefore;

  private SingleWorkerTrain(Map<String, String> options, String progressId, boolean before) {
    this.options = options;
    this.progressId = progressId;
    this.checkpointBefore = before;
  }

  static DistributedTrain.Outcome run(
      SparkSession spark, PrintStream progress, FanoutConf c, TrainSpec spec) {
    boolean before = Checkpoint.exists(spec.output().modelDir());
    SingleWorkerTrain task =
        new SingleWorkerTrain(
            DistributedTrain.shippedOptions(c), DriverStreams.register(progress), before);
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
      TrainSpec base =
          TrainOptionsDefs.spec(FanoutConf.of("train", TrainCommandOptions.TRAIN, options));
      TrainSpec spec =
          base.toBuilder()
              .device(d -> d.withOrdinal(GpuAssignment.forCurrentTask(d.backend())))
              .build();
      TrainRun.Result r =
          TrainRun.train(
              spec,
              DriverStreams.forTask(progressId),
              model -> GradientReducer.LOCAL,
              tc.attemptNumber() > 0 && !checkpointBefore,
              tc::isInterrupted);
      return new Attempt(DistributedTrain.Outcome.of(r, tc.attemptNumber()), null);
    } catch (InvalidInputException e) {
      return new Attempt(null, e);
    }
  }
}
