package io.fanout.spark;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.IfExists;
import io.fanout.conf.options.DistOptions;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.spark.train.ModelDirs;
import io.fanout.spark.train.TrainJob;
import io.fanout.spark.train.TrainOptionsDefs;
import io.fanout.store.InvalidInputException;
import io.fanout.train.Checkpoint;
import io.fanout.train.EarlyStop;
import io.fanout.train.TrainProgress;
import java.io.PrintStream;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * A configured {@code train} of a GNN on mini-batch shards; see {@link Fanout} and {@link
 * TrainOptionsDefs#TRAIN} (the same options as {@code bin/fanout train}).
 *
 * <p>Training runs inside a Spark job (one task, or a barrier stage of {@code workers} tasks) in
 * the caller's job group, else in {@code fanout-train}: {@code
 * spark.sparkContext().cancelJobGroup(group)} from another thread, or {@code
 * spark.interruptTag(tag)} of a tag the calling thread gave the session ({@code spark.addTag}),
 * stops it before its next batch, and {@link #execute()} then throws {@link
 * FanoutCancelledException}.
 */
public final class TrainAction extends FanoutAction<TrainAction, TrainResult> {
  private PrintStream progress = System.err;
  private TrainProgress listener;

  TrainAction(SparkSession spark, String store, String shards) {
    super(spark, "train", TrainCommandOptions.TRAIN);
    if (store != null) {
      option(TrainCommandOptions.GRAPH.name(), store);
    }
    if (shards != null) {
      option(TrainCommandOptions.SHARDS.name(), shards);
    }
  }

  /** The model directory to write ({@code model-dir}). */
  public TrainAction modelDir(String path) {
    return option(TrainCommandOptions.MODEL_DIR.name(), path);
  }

  /** Validation shards, evaluated after every epoch ({@code val-shards}). */
  public TrainAction valShards(String path) {
    return option(TrainCommandOptions.VAL_SHARDS.name(), path);
  }

  /** Epochs in total ({@code epochs}). */
  public TrainAction epochs(int epochs) {
    return option(TrainCommandOptions.EPOCHS.name(), Integer.toString(epochs));
  }

  /**
   * Ends training once {@code patience} epochs in a row bring no better validation score, the one
   * {@code best.bin} is chosen by; needs validation; 0 (the default) is off ({@code early-stop}).
   */
  public TrainAction earlyStop(int patience) {
    return option(TrainCommandOptions.EARLY_STOP.name(), Integer.toString(patience));
  }

  /** Seeds initialization and dropout ({@code seed}). */
  public TrainAction seed(long seed) {
    return option(TrainCommandOptions.SEED.name(), Long.toString(seed));
  }

  /** The architecture, {@code sage} or {@code gcn} ({@code model}). */
  public TrainAction model(String kind) {
    return option(TrainCommandOptions.MODEL.name(), kind);
  }

  /** Hidden width ({@code hidden}). */
  public TrainAction hidden(int width) {
    return option(TrainCommandOptions.HIDDEN.name(), Integer.toString(width));
  }

  /** A link model's decoder, {@code dot} or {@code mlp} ({@code decoder}). */
  public TrainAction decoder(String name) {
    return option(TrainCommandOptions.DECODER.name(), name);
  }

  /** Trainer replicas; 0 = one per task slot on a cluster, 1 in local mode ({@code workers}). */
  public TrainAction workers(int workers) {
    return option(DistOptions.WORKERS.name(), Integer.toString(workers));
  }

  /**
   * How a step gets its input features ({@code feature-access}): {@code gather} (default) or {@code
   * zero-copy}, where the backend reads the rows from the mapped store itself.
   */
  public TrainAction featureAccess(String access) {
    return option(TrainCommandOptions.FEATURE_ACCESS.name(), access);
  }

  /**
   * Reuses the bottom-layer embeddings of the hottest {@code fraction} of the vertices, at most
   * {@code staleness} steps old ({@link io.fanout.train.HotReuse#AUTO_STALENESS}: a twelfth of an
   * epoch's steps), ranked by {@code hotBy} ({@code frequency} or {@code in-degree}) ({@code
   * reuse-hot}, {@code staleness}, {@code hot-by}; see {@code docs/training.md}).
   */
  public TrainAction reuseHot(double fraction, int staleness, String hotBy) {
    option(TrainCommandOptions.REUSE_HOT.name(), Double.toString(fraction));
    option(TrainCommandOptions.STALENESS.name(), io.fanout.train.HotReuse.stalenessName(staleness));
    return option(TrainCommandOptions.HOT_BY.name(), hotBy);
  }

  /**
   * Where refreshes of reused embeddings run: {@code overlapped} (a worker thread with a CPU
   * backend of its own), {@code inline} (the training thread and backend) or {@code auto} (the
   * default: inline on a GPU and when the cache holds inputs, else overlapped) ({@code
   * reuse-refresh}).
   */
  public TrainAction reuseRefresh(String refresh) {
    return option(TrainCommandOptions.REUSE_REFRESH.name(), refresh);
  }

  /**
   * How layer 0 gets gradient from the rows a step reuses: {@code none} (the default) or {@code
   * deferred}, a backward of their summed gradient on the refresh worker ({@code reuse-backward}).
   */
  public TrainAction reuseBackward(String backward) {
    return option(TrainCommandOptions.REUSE_BACKWARD.name(), backward);
  }

  /**
   * What the cache of reused rows holds: {@code outputs} (layer 0's, computed with parameters up to
   * the staleness old), {@code inputs} (sage: layer 0's aggregated inputs; each step computes their
   * products with its own parameters) or {@code auto} (the default: inputs for sage, outputs for
   * gcn or with the deferred backward) ({@code reuse-rows}).
   */
  public TrainAction reuseRows(String rows) {
    return option(TrainCommandOptions.REUSE_ROWS.name(), rows);
  }

  /**
   * Continue from the model dir's last complete checkpoint ({@code resume}); the same as {@code
   * mode("resume")}.
   */
  public TrainAction resume(boolean resume) {
    return option(TrainCommandOptions.RESUME.name(), Boolean.toString(resume));
  }

  /**
   * Reports the run's progress to {@code listener} as it trains: each epoch's start and end (loss,
   * validation accuracy) and every step, for a notebook's own progress bar or log, e.g.
   *
   * <pre>{@code
   * train.listener(new TrainProgress() { public void epochEnded(EpochStats s, int n, Accuracy v) {
   *     System.out.println("epoch " + (s.epoch() + 1) + "/" + n + " loss " + s.loss()); } });
   * }</pre>
   *
   * It is called from the training thread, between steps, and must return quickly. In local mode
   * the trainer runs in this JVM; on a cluster it runs on an executor and the listener hears
   * nothing (the progress lines go to the executor's log). The Spark UI shows each epoch's status
   * either way in local mode: a job described {@code fanout train: epoch 3/50, step 20/20, loss
   * 0.8123, ETA 2m13s (1/1)}.
   */
  public TrainAction listener(TrainProgress listener) {
    this.listener = listener;
    return this;
  }

  /**
   * Where progress lines go (default {@code System.err}); null for none. Trainers on executors
   * print to their executor's log.
   */
  public TrainAction progress(PrintStream out) {
    this.progress = out;
    return this;
  }

  /**
   * Trains (or resumes) the model; a checkpoint and a line of {@code metrics.jsonl} per epoch land
   * in the model dir. When the model dir already holds the same run (same inputs and options) of as
   * many epochs, or one that stopped early ({@code early-stop}) before them, trains nothing and
   * returns the earlier result, {@link TrainResult#skipped()} true; {@link #mode} says what to do
   * with another run there.
   *
   * @throws FanoutCancelledException when the job group or a session tag was cancelled; training
   *     has stopped by then and the model dir holds only complete checkpoints
   * @throws io.fanout.store.InvalidInputException on bad input, or when the model dir holds a
   *     checkpoint of another request (other options or inputs, or other epochs) and no mode says
   *     what to do with it
   * @throws io.fanout.conf.FanoutConfigException on bad options
   */
  @Override
  public TrainResult execute() {
    FanoutConf c = conf();
    IfExists m =
        c.get(TrainCommandOptions.OVERWRITE)
            ? ifExists(c, TrainCommandOptions.OVERWRITE, IfExists.OVERWRITE, true)
            : ifExists(c, TrainCommandOptions.RESUME, IfExists.RESUME, true);
    if (m == IfExists.OVERWRITE && c.get(TrainCommandOptions.RESUME)) {
      throw new FanoutConfigException(
          say(
              "mode(\"overwrite\") trains afresh and resume(true) continues; give one",
              "--overwrite trains afresh and --resume continues; give one"));
    }
    Path dir = Path.of(c.get(TrainCommandOptions.MODEL_DIR));
    if (Checkpoint.exists(dir)) {
      Checkpoint ck = Checkpoint.read(dir);
      int want = c.get(TrainCommandOptions.EPOCHS);
      switch (m) {
        case ERROR -> throw refused(dir, ck, "errorifexists", "error");
        case IGNORE -> {
          return TrainResult.earlier(spark(), dir, ck, 1);
        }
        case OVERWRITE -> {
          ModelDirs.clear(dir);
          c = withResume(false);
        }
        case RESUME -> c = withResume(true);
        case SAME -> {
          EarlyStop stop = new EarlyStop(Math.max(0, c.get(TrainCommandOptions.EARLY_STOP)));
          if (!stop.finished(ck.epochs(), ck.meta(), want)) {
            throw otherEpochs(dir, ck, want);
          }
          // Resuming a run of as many epochs (or one that stopped early) trains none; a run of
          // other options is refused.
          c = withResume(true);
        }
      }
    }
    FanoutConf resolved = c;
    TrainResult r;
    try {
      r =
          TrainResult.of(
              spark(),
              cancellable(
                  () ->
                      dir
                          + " keeps the checkpoint of its last complete epoch, if any; "
                          + say(
                              "train again with mode(\"resume\") to continue",
                              "train again with --resume to continue"),
                  () -> {
                    try (TrainProgress.Registration heard =
                        TrainProgress.register(listener == null ? TrainProgress.NONE : listener)) {
                      return TrainJob.run(spark(), resolved, progress);
                    }
                  }));
    } catch (RuntimeException e) {
      throw inCallerTerms(e);
    }
    if (r.epochsRun() == 0 && (m == IfExists.SAME || m == IfExists.RESUME)) {
      return TrainResult.earlier(spark(), dir, Checkpoint.read(dir), r.workers());
    }
    return r;
  }

  private FanoutConf withResume(boolean resume) {
    option(TrainCommandOptions.RESUME.name(), Boolean.toString(resume));
    return conf();
  }

  private InvalidInputException refused(Path dir, Checkpoint ck, String api, String flag) {
    return new InvalidInputException(
        "model dir "
            + dir
            + " already holds a checkpoint ("
            + ck.epochs()
            + " epochs of a "
            + ck.meta().get("model.kind")
            + " model); "
            + say(
                "mode(\"" + api + "\") refuses any model there: choose another modelDir",
                "--if-exists " + flag + " refuses any model there: choose another --model-dir"));
  }

  private InvalidInputException otherEpochs(Path dir, Checkpoint ck, int want) {
    return new InvalidInputException(
        "model dir "
            + dir
            + " already holds a checkpoint of "
            + ck.epochs()
            + " epochs of a "
            + ck.meta().get("model.kind")
            + " model, and this request asks for "
            + want
            + "; "
            + say(
                "call mode(\"resume\") to continue that run to "
                    + want
                    + " epochs, mode(\"overwrite\") to train afresh, or choose another modelDir",
                "pass --resume to continue that run to "
                    + want
                    + " epochs, --overwrite to train afresh, or choose another --model-dir"));
  }
}
