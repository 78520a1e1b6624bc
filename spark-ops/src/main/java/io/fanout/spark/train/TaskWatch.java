package io.fanout.spark.train;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaFutureAction;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Runs a Spark job and, when it fails or is cancelled, waits until the tasks it started have really
 * ended before rethrowing. Spark fails a cancelled job at once, while its running tasks stop only
 * when they next check for it; a trainer still writing its model dir, or still holding threads and
 * open files, must not outlive the call that started it.
 */
final class TaskWatch extends SparkListener {
  /** The local property that marks the watched job. */
  static final String PROPERTY = "spark.fanout.watch.id";

  /** How long a failed job's tasks get to stop. */
  static final long STOP_MILLIS = 120_000;

  private final String id = UUID.randomUUID().toString();
  private final Set<Integer> stages = new HashSet<>();
  private final Set<Integer> ended = new HashSet<>();
  private int runningTasks;

  private TaskWatch() {}

  /**
   * Submits a job with {@code submit} (e.g. {@code rdd.collectAsync()}) and returns its result. If
   * it fails, waits until every task it started has ended (at most {@link #STOP_MILLIS}), then
   * rethrows Spark's exception. The calling thread's local properties are restored.
   */
  static <T> T run(SparkContext sc, Supplier<JavaFutureAction<T>> submit) {
    TaskWatch w = new TaskWatch();
    String previous = sc.getLocalProperty(PROPERTY);
    sc.addSparkListener(w);
    try {
      JavaFutureAction<T> f;
      sc.setLocalProperty(PROPERTY, w.id);
      try {
        f = submit.get();
      } finally {
        sc.setLocalProperty(PROPERTY, previous);
      }
      try {
        return f.get();
      } catch (ExecutionException e) {
        w.awaitEnded(f.jobIds());
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        if (cause instanceof RuntimeException re) {
          throw re;
        }
        if (cause instanceof Error err) {
          throw err;
        }
        throw new IllegalStateException(cause);
      } catch (InterruptedException e) {
        f.cancel(true);
        w.awaitEnded(f.jobIds());
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for a Spark job", e);
      }
    } finally {
      sc.removeSparkListener(w);
    }
  }

  /** Waits until the jobs have ended and no task of theirs runs; bounded by STOP_MILLIS. */
  private synchronized void awaitEnded(List<Integer> jobs) {
    boolean interrupted = false;
    long deadline = System.nanoTime() + STOP_MILLIS * 1_000_000L;
    while (!ended.containsAll(jobs) || runningTasks > 0) {
      long left = (deadline - System.nanoTime()) / 1_000_000L;
      if (left <= 0) {
        break;
      }
      try {
        wait(left);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public synchronized void onJobStart(SparkListenerJobStart e) {
    if (e.properties() != null && id.equals(e.properties().getProperty(PROPERTY))) {
      for (Object stage : CollectionConverters.asJava(e.stageIds())) {
        stages.add((Integer) stage);
      }
    }
  }

  @Override
  public synchronized void onJobEnd(SparkListenerJobEnd e) {
    ended.add(e.jobId());
    notifyAll();
  }

  @Override
  public synchronized void onTaskStart(SparkListenerTaskStart e) {
    if (stages.contains(e.stageId())) {
      runningTasks++;
    }
  }

  @Override
  public synchronized void onTaskEnd(SparkListenerTaskEnd e) {
    if (stages.contains(e.stageId())) {
      runningTasks--;
      notifyAll();
    }
  }
}
