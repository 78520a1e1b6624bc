package io.fanout.spark.train;

import io.fanout.spark.internal.JobLabels;
import io.fanout.train.Accuracy;
import io.fanout.train.EpochStats;
import io.fanout.train.TrainProgress;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Shows a running {@code train} in the Spark UI, where a notebook user looks: after every epoch, a
 * job without tasks, in the run's job group and with its tags, whose description is the epoch's
 * status, {@code fanout train: epoch 3/50, step 20/20, loss 0.8123, ETA 2m13s (1/1)}. (A running
 * job's description cannot change; a job of no partitions is listed at once, as succeeded, and
 * takes no task slot.)
 *
 * <p>It listens to the trainers of this JVM ({@link TrainProgress#register}): in local mode the
 * trainer runs here; on a cluster it runs on an executor and prints its progress to that executor's
 * log instead.
 */
final class TrainStatus implements TrainProgress, AutoCloseable {
  private final SparkContext sc;
  private final ExecutorService poster;
  private final TrainProgress.Registration registration;
  private long startNanos;
  private int first;

  /**
   * Starts listening. Call it where the run's jobs are labelled ({@link JobLabels#call}): the
   * thread that posts the status jobs inherits the calling thread's group, tags and settings.
   */
  TrainStatus(SparkContext sc) {
    this.sc = sc;
    this.poster =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "fanout-train-status");
              t.setDaemon(true);
              return t;
            });
    // Create the thread now, on the caller's thread, so that it inherits the run's labels.
    poster.execute(() -> {});
    this.registration = TrainProgress.register(this);
  }

  @Override
  public synchronized void started(int first, int epochs) {
    this.first = first;
    this.startNanos = System.nanoTime();
  }

  @Override
  public void epochEnded(EpochStats s, int epochs, Accuracy validation) {
    post(status(s, epochs, validation));
  }

  /** {@code epoch 3/50, step 20/20, loss 0.8123[, val 0.7012], ETA 2m13s}. */
  synchronized String status(EpochStats s, int epochs, Accuracy validation) {
    int done = s.epoch() + 1;
    double secs = (System.nanoTime() - startNanos) / 1e9;
    int ran = Math.max(1, done - first);
    double eta = secs / ran * Math.max(0, epochs - done);
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "epoch %d/%d, step %d/%d, loss %.4f",
                done,
                epochs,
                s.batches(),
                s.batches(),
                s.loss()));
    if (validation != null && validation.total() > 0) {
      sb.append(String.format(Locale.ROOT, ", val %.4f", validation.value()));
    }
    return sb.append(", ETA ").append(duration(eta)).toString();
  }

  static String duration(double seconds) {
    long s = Math.round(seconds);
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return (s / 60) + "m" + String.format(Locale.ROOT, "%02d", s % 60) + "s";
    }
    return (s / 3600) + "h" + String.format(Locale.ROOT, "%02d", (s / 60) % 60) + "m";
  }

  private void post(String status) {
    try {
      poster.execute(
          () -> {
            sc.setLocalProperty(
                JobLabels.DESCRIPTION, JobLabels.description("train", status, 1, 1));
            JavaSparkContext.fromSparkContext(sc).emptyRDD().collect();
          });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed: the run has ended
    }
  }

  /** Stops listening; waits briefly for the last status to be posted. */
  @Override
  public void close() {
    registration.close();
    poster.shutdown();
    try {
      poster.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
