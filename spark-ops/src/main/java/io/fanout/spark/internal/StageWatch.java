package io.fanout.spark.internal;

import io.fanout.store.Cancellation;
import io.fanout.store.CancelledException;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaFutureAction;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.sql.SparkSession;

/**
 * A one-task Spark job that stands for work the driver does itself ({@code evaluate}, {@code
 * infer}): it makes the work visible in the Spark UI under its stage's label, in the caller's job
 * group and with the session's tags, and it is what cancelling that group or tag cancels. {@link
 * #run} runs the driver's work inside {@link Cancellation#watching}, so that the work's loops and
 * its publish step stop at their next {@link Cancellation#check} once the watch job was cancelled.
 *
 * <p>The watch task holds one task slot while the work runs and does nothing else. When the work
 * ends, the task is released: in local mode it sees the release and ends normally; on a cluster its
 * job is cancelled through a tag of its own.
 */
public final class StageWatch implements AutoCloseable {
  /** How long a released watch task gets to end on its own before its job is cancelled. */
  static final long RELEASE_MILLIS = 500;

  private static final Set<String> RELEASED = ConcurrentHashMap.newKeySet();

  private final SparkContext sc;
  private final String id;
  private final JavaFutureAction<List<Integer>> job;
  private volatile boolean closing;

  private StageWatch(SparkContext sc, String id, JavaFutureAction<List<Integer>> job) {
    this.sc = sc;
    this.id = id;
    this.job = job;
  }

  /**
   * Starts the watch job of {@code stage}, labelled as its only step {@code step}, on the calling
   * thread's job group and the session's tags.
   */
  public static StageWatch start(SparkSession spark, String stage, String step) {
    SparkContext sc = spark.sparkContext();
    String id = "fanout-watch-" + UUID.randomUUID();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sc);
    JavaFutureAction<List<Integer>> job =
        JobLabels.call(
            spark,
            stage,
            step,
            1,
            1,
            () -> {
              sc.addJobTag(id);
              try {
                return jsc.parallelize(List.of(0), 1).map(new WatchTask(id)).collectAsync();
              } finally {
                sc.removeJobTag(id);
              }
            });
    return new StageWatch(sc, id, job);
  }

  /** True when the watch job was cancelled by anyone but this watch. */
  public boolean cancelled() {
    if (closing || !job.isDone()) {
      return false;
    }
    try {
      job.get();
      return false;
    } catch (ExecutionException e) {
      return Cancels.isCancel(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (java.util.concurrent.CancellationException e) {
      return true;
    }
  }

  /**
   * Runs {@code body} on this thread, stopped at its next {@link Cancellation#check} once the watch
   * job is cancelled; a body that ends after a cancel without checking fails as well.
   *
   * @throws CancelledException when the watch job was cancelled
   */
  public <T> T run(Supplier<T> body) {
    T out;
    try {
      out = Cancellation.watching(this::cancelled, body);
    } catch (CancelledException e) {
      throw new CancelledException(reason(), e);
    }
    if (cancelled()) {
      throw new CancelledException(reason());
    }
    return out;
  }

  /** Spark's message for the cancelled watch job, which says which group or tag was cancelled. */
  private String reason() {
    try {
      job.get();
    } catch (ExecutionException e) {
      Throwable c = Cancels.find(e.getCause());
      if (c != null && c.getMessage() != null) {
        return c.getMessage();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.CancellationException e) {
      // no message of Spark's
    }
    return "cancelled by the caller";
  }

  /** Releases the watch task and waits (briefly) for its job to end. */
  @Override
  public void close() {
    closing = true;
    RELEASED.add(id);
    try {
      job.get(RELEASE_MILLIS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      sc.cancelJobsWithTag(id, "the watched work has ended");
    } catch (ExecutionException | java.util.concurrent.CancellationException e) {
      // cancelled or failed: it has ended either way
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      RELEASED.remove(id);
    }
  }

  /** The watch task: waits until released or killed. */
  private static final class WatchTask implements Function<Integer, Integer> {
    private static final long serialVersionUID = 1L;
    private static final long POLL_MILLIS = 20;

    private final String id;

    WatchTask(String id) {
      this.id = id;
    }

    @Override
    public Integer call(Integer v) {
      TaskContext tc = TaskContext.get();
      while (!RELEASED.contains(id) && (tc == null || !tc.isInterrupted())) {
        try {
          Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      return v;
    }
  }
}
