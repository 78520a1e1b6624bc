package io.fanout.spark.train;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.DistOptions;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.dist.ReducerDecorator;
import io.fanout.shard.ShardManifest;
import io.fanout.spark.internal.Hooks;
import io.fanout.store.InvalidInputException;
import io.fanout.train.EpochStats;
import io.fanout.train.TrainRun;
import io.fanout.train.typed.TypedTrainRun;
import java.io.PrintStream;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * {@code bin/fanout train} on several workers: one trainer per task slot of a Spark barrier stage,
 * gradients averaged over TCP (see {@code docs/distributed.md}). Each worker runs the same {@link
 * TrainReplica} (one-type or typed): it rebuilds the run from the resolved options, opens the graph
 * store and shards from the shared paths, trains on its share of every epoch's batches, and rank 0
 * writes the model dir. A retried stage resumes from the model dir's last checkpoint.
 */
public final class DistributedTrain implements WorkerFunction<DistributedTrain.Outcome> {
  /** What rank 0 reports. */
  public record Outcome(
      String model,
      int layers,
      int epochsRun,
      double finalLoss,
      double seconds,
      double waitSeconds,
      int stageAttempt,
      InvalidInputException refused)
      implements Serializable {
    /**
     * A worker's report that the trainer refused its input (e.g. a checkpoint of another run to
     * resume): every replica finds the same before its first step, and the driver throws it, as a
     * task failure would be retried and then lose its type.
     */
    static Outcome refused(InvalidInputException e, int attempt) {
      return new Outcome("", 0, 0, Double.NaN, 0, 0, attempt, e);
    }

    /** The outcome of a finished typed run. */
    static Outcome of(TypedTrainRun.Result r, int attempt) {
      return new Outcome(
          r.config().kind().id(),
          r.config().layers(),
          r.epochsRun(),
          r.finalLoss(),
          r.seconds(),
          r.waitSeconds(),
          attempt,
          null);
    }

    /** The outcome of a finished run: totals over its epochs, the last epoch's loss. */
    static Outcome of(TrainRun.Result r, int attempt) {
      double secs = 0;
      double wait = 0;
      for (EpochStats e : r.epochs()) {
        secs += e.seconds();
        wait += e.waitSeconds();
      }
      EpochStats last = r.epochs().isEmpty() ? null : r.epochs().get(r.epochs().size() - 1);
      return new Outcome(
          r.config().kind().id(),
          r.config().layers(),
          r.epochs().size(),
          last == null ? Double.NaN : last.loss(),
          secs,
          wait,
          attempt,
          null);
    }
  }

  private final TrainReplica replica;
  private final boolean verify;
  private final String progressId;
  private final String reducerDecorator;

  private DistributedTrain(
      TrainReplica replica, boolean verify, String progressId, String reducerDecorator) {
    this.replica = replica;
    this.verify = verify;
    this.progressId = progressId;
    this.reducerDecorator = reducerDecorator;
  }

  /**
   * Runs {@code replica} on {@code workers} workers of a barrier stage and returns rank 0's
   * outcome; throws the bad input a worker refused.
   *
   * @param shards the shard directory, for messages
   * @param manifest its manifest: each worker needs at least one batch per epoch
   */
  static Outcome run(
      SparkSession spark,
      PrintStream err,
      FanoutConf c,
      int workers,
      TrainReplica replica,
      Path shards,
      ShardManifest manifest) {
    String master = spark.sparkContext().master();
    if (master.startsWith("local") && c.get(DistOptions.PORT) != 0) {
      throw new FanoutConfigException(
          "option 'dist-port' of train is "
              + c.get(DistOptions.PORT)
              + " with "
              + workers
              + " workers on "
              + master
              + ", where every worker listens on this one host and no two can take one port; use"
              + " --dist-port 0 (a free port each)");
    }
    if (manifest.batchesPerEpoch < workers) {
      throw new InvalidInputException(
          "shards in "
              + shards
              + " hold "
              + manifest.batchesPerEpoch
              + " batch(es) per epoch, fewer than the "
              + workers
              + " workers, so no worker would get a step; expected at least one batch per worker:"
              + " sample with --batch-size at most "
              + Math.max(1, manifest.seedsPerEpoch / workers));
    }
    if (err != null) {
      err.printf(
          "fanout train: %d workers in a barrier stage on %s%n",
          workers, spark.sparkContext().master());
    }
    String progressId = DriverStreams.register(err);
    try {
      List<Outcome> res =
          BarrierRunner.run(
              spark,
              new BarrierRunner.Settings(
                  workers, c.get(DistOptions.TIMEOUT_MS), c.get(DistOptions.PORT)),
              new DistributedTrain(
                  replica,
                  c.get(DistOptions.VERIFY),
                  progressId,
                  Hooks.className(spark, Hooks.REDUCER_DECORATOR, ReducerDecorator.class)));
      for (Outcome o : res) {
        if (o.refused() != null) {
          throw o.refused();
        }
      }
      return res.get(0);
    } finally {
      DriverStreams.unregister(progressId);
    }
  }

  /**
   * The resolved options to rebuild the run on an executor, with absolute paths (which must be on a
   * file system every executor sees).
   */
  static Map<String, String> shippedOptions(FanoutConf c) {
    Map<String, String> raw = c.present();
    // Executors run elsewhere: ship absolute paths (which must be on a shared file system).
    for (OptionDef<String> p :
        List.of(
            TrainCommandOptions.GRAPH,
            TrainCommandOptions.MODEL_DIR,
            TrainCommandOptions.SHARDS,
            TrainCommandOptions.VAL_SHARDS)) {
      String v = raw.get(p.name());
      if (v != null && !v.isBlank()) {
        raw.put(p.name(), Path.of(v).toAbsolutePath().normalize().toString());
      }
    }
    return raw;
  }

  @Override
  public Outcome run(WorkerContext w) {
    ReplicaSlot slot =
        new ReplicaSlot(
            w.stageAttempt(),
            w.stageAttempt() > 0,
            w.rank() == 0 ? DriverStreams.forTask(progressId) : null,
            w::cancelled,
            new ReplicaReducer(w.reducer(), verify, reducerDecorator));
    try {
      return replica.train(slot);
    } catch (InvalidInputException e) {
      return Outcome.refused(e, w.stageAttempt());
    }
  }
}
