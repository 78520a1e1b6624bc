package io.fanout.cli;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkJobInfo;
import org.apache.spark.SparkStageInfo;
import org.apache.spark.SparkStatusTracker;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;

/**
 * The progress of the running Spark job as one line: its description ({@code prepare: sort edges by
 * destination and write csr files (6/6)}), the tasks done of its running stages, the task rate and
 * an ETA from it. A listener remembers each job's description; a daemon thread named {@value
 * #THREAD} polls {@link SparkStatusTracker} a few times a second and hands the line to the
 * renderer. {@link #close} stops and joins the thread and removes the listener.
 */
final class SparkJobProgress implements AutoCloseable {
  static final String THREAD = "fanout-progress";
  private static final long POLL_MILLIS = 200;

  private final SparkContext sc;
  private final ProgressRenderer renderer;
  private final BooleanSupplier paused;
  private final Map<Integer, String> descriptions = new ConcurrentHashMap<>();
  private final CountDownLatch stop = new CountDownLatch(1);
  private final SparkListener listener;
  private Thread thread;
  private int jobShown = -1;
  private long totalShown;
  private long jobSeenAt;
  private long doneAtSeen;

  /**
   * @param paused true while another source (a training run) owns the line
   */
  SparkJobProgress(SparkContext sc, ProgressRenderer renderer, BooleanSupplier paused) {
    this.sc = sc;
    this.renderer = renderer;
    this.paused = paused;
    this.listener =
        new SparkListener() {
          @Override
          public void onJobStart(SparkListenerJobStart start) {
            String d =
                start.properties() == null
                    ? null
                    : start.properties().getProperty("spark.job.description");
            descriptions.put(start.jobId(), d == null ? "job " + start.jobId() : d);
          }

          @Override
          public void onJobEnd(SparkListenerJobEnd end) {
            descriptions.remove(end.jobId());
          }
        };
    sc.addSparkListener(listener);
  }

  /** Starts polling on a daemon thread. */
  SparkJobProgress start() {
    thread =
        new Thread(
            () -> {
              try {
                while (!stop.await(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                  poll();
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (RuntimeException e) {
                // the context stopped under us: no more progress to show
              }
            },
            THREAD);
    thread.setDaemon(true);
    thread.start();
    return this;
  }

  /** Looks at the running jobs once and shows the newest one's line. */
  synchronized void poll() {
    if (paused.getAsBoolean() || sc.isStopped()) {
      return;
    }
    SparkStatusTracker tracker = sc.statusTracker();
    int job = -1;
    for (int id : tracker.getActiveJobIds()) {
      job = Math.max(job, id);
    }
    if (job < 0) {
      return;
    }
    SparkJobInfo info = tracker.getJobInfo(job).getOrElse(() -> null);
    if (info == null) {
      return;
    }
    Set<Integer> active = new HashSet<>();
    for (int s : tracker.getActiveStageIds()) {
      active.add(s);
    }
    long done = 0;
    long total = 0;
    for (int s : info.stageIds()) {
      if (!active.contains(s)) {
        continue;
      }
      SparkStageInfo st = tracker.getStageInfo(s).getOrElse(() -> null);
      if (st != null) {
        done += st.numCompletedTasks();
        total += st.numTasks();
      }
    }
    if (total == 0) {
      return; // between stages
    }
    long now = renderer.now();
    if (job != jobShown || total != totalShown) { // another job, or its next stage
      jobShown = job;
      totalShown = total;
      jobSeenAt = now;
      doneAtSeen = done;
    }
    double secs = (now - jobSeenAt) / 1e9;
    double rate = secs > 0 && done >= doneAtSeen ? (done - doneAtSeen) / secs : Double.NaN;
    renderer.show(line(descriptions.getOrDefault(job, "job " + job), done, total, rate), false);
  }

  /**
   * {@code <description> | tasks <done>/<total> | <rate> tasks/s | ETA <eta>}, without the {@code
   * fanout } prefix of Fanout's job descriptions.
   */
  static String line(String description, long done, long total, double tasksPerSecond) {
    String what = description.startsWith("fanout ") ? description.substring(7) : description;
    StringBuilder sb = new StringBuilder(what).append(" | tasks ").append(done).append('/');
    sb.append(total);
    if (tasksPerSecond > 0) {
      sb.append(" | ").append(ProgressRenderer.rate(tasksPerSecond)).append(" tasks/s");
      sb.append(" | ETA ").append(ProgressRenderer.duration((total - done) / tasksPerSecond));
    }
    return sb.toString();
  }

  @Override
  public void close() {
    stop.countDown();
    if (thread != null) {
      boolean interrupted = false;
      while (true) {
        try {
          thread.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    sc.removeSparkListener(listener);
    renderer.clear();
  }
}
