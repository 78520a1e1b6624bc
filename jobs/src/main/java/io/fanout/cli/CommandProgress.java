package io.fanout.cli;

import io.fanout.train.TrainProgress;
import java.io.PrintStream;
import org.apache.spark.sql.SparkSession;

/**
 * The progress display of one {@code bin/fanout} command: a {@link ProgressRenderer} on standard
 * error in the resolved {@link ProgressMode}, fed by the training runs of this JVM ({@link
 * TrainProgressView}, registered with {@link TrainProgress#register}) and, once the command starts
 * Spark, by the running Spark jobs ({@link SparkJobProgress}). {@link #close} stops all of it.
 */
final class CommandProgress implements AutoCloseable {
  private final ProgressRenderer renderer;
  private final PrintStream err;
  private final PrintStream systemErr;
  private final TrainProgressView train;
  private final TrainProgress.Registration registration;
  private SparkJobProgress jobs;

  private CommandProgress(ProgressRenderer renderer, PrintStream err, PrintStream systemErr) {
    this.renderer = renderer;
    this.err = err;
    this.systemErr = systemErr;
    if (renderer.mode() == ProgressMode.NONE) {
      train = null;
      registration = null;
    } else {
      train = new TrainProgressView(renderer);
      registration = TrainProgress.register(train);
    }
  }

  /**
   * Starts the display for a command writing to {@code err}.
   *
   * @param option the {@code --progress} value, or null
   */
  static CommandProgress start(String option, PrintStream err) {
    boolean processStderr = err == System.err;
    ProgressMode mode =
        ProgressMode.resolve(
            option,
            System.getenv(ProgressMode.ENV),
            processStderr,
            System.getenv("TERM"),
            ProgressMode.StderrTty.SYSTEM);
    ProgressRenderer renderer = ProgressRenderer.of(err, mode);
    if (mode != ProgressMode.TERMINAL) {
      return new CommandProgress(renderer, err, null);
    }
    // Whatever else writes to the terminal (the command, a trainer printing to System.err) first
    // clears the live line.
    PrintStream safe = renderer.lineSafe();
    PrintStream previous = null;
    if (processStderr) {
      previous = System.err;
      System.setErr(safe);
    }
    return new CommandProgress(renderer, safe, previous);
  }

  /** The stream the command writes its own progress and log lines to. */
  PrintStream err() {
    return err;
  }

  /**
   * The stream the command writes its results to: {@code out}, which on a terminal first clears the
   * live line (standard output and error share the screen).
   */
  PrintStream out(PrintStream out) {
    return renderer.mode() == ProgressMode.TERMINAL ? renderer.lineSafe(out) : out;
  }

  /** Follows the Spark jobs of {@code spark} from now on. */
  synchronized void sparkStarted(SparkSession spark) {
    if (jobs == null && renderer.mode() != ProgressMode.NONE) {
      jobs = new SparkJobProgress(spark.sparkContext(), renderer, train::active).start();
    }
  }

  @Override
  public synchronized void close() {
    try {
      if (jobs != null) {
        jobs.close();
        jobs = null;
      }
    } finally {
      if (registration != null) {
        registration.close();
      }
      renderer.close();
      if (systemErr != null) {
        System.setErr(systemErr);
      }
    }
  }
}
