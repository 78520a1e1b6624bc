package io.fanout.testing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.sql.SparkSession;

/**
 * Counts the Spark jobs, the stages that ran (skipped stages are not counted) and their tasks while
 * it is open, in total and per job description ({@code spark.job.description}).
 */
public final class JobCounts implements AutoCloseable {
  private final SparkSession spark;
  private final Map<Integer, String> stageDescription = new LinkedHashMap<>();
  private final Map<String, int[]> byDescription = new LinkedHashMap<>(); // jobs, stages, tasks
  private final StringBuilder stageNames = new StringBuilder();
  private int jobs;
  private int stages;
  private int tasks;
  private final SparkListener listener =
      new SparkListener() {
        @Override
        public void onJobStart(SparkListenerJobStart start) {
          String d = String.valueOf(start.properties().getProperty("spark.job.description"));
          synchronized (byDescription) {
            jobs++;
            byDescription.computeIfAbsent(d, k -> new int[3])[0]++;
            scala.collection.Iterator<Object> ids = start.stageIds().iterator();
            while (ids.hasNext()) {
              stageDescription.put((Integer) ids.next(), d);
            }
          }
        }

        @Override
        public void onStageCompleted(SparkListenerStageCompleted done) {
          synchronized (byDescription) {
            stages++;
            String d = stageDescription.getOrDefault(done.stageInfo().stageId(), "?");
            int[] c = byDescription.computeIfAbsent(d, k -> new int[3]);
            c[1]++;
            c[2] += done.stageInfo().numTasks();
            tasks += done.stageInfo().numTasks();
            stageNames
                .append("    stage ")
                .append(done.stageInfo().stageId())
                .append(' ')
                .append(done.stageInfo().name())
                .append("  [")
                .append(d)
                .append("]\n");
          }
        }
      };

  private JobCounts(SparkSession spark) {
    this.spark = spark;
    spark.sparkContext().addSparkListener(listener);
  }

  /** Starts counting the jobs of {@code spark}. */
  public static JobCounts record(SparkSession spark) {
    return new JobCounts(spark);
  }

  private void drain() {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } catch (TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The jobs started so far. */
  public int jobs() {
    drain();
    synchronized (byDescription) {
      return jobs;
    }
  }

  /** The stages completed so far. */
  public int stages() {
    drain();
    synchronized (byDescription) {
      return stages;
    }
  }

  /** One line per job description: jobs, stages and tasks, then the totals. */
  public String report() {
    drain();
    StringBuilder b = new StringBuilder();
    synchronized (byDescription) {
      byDescription.forEach(
          (d, c) ->
              b.append(
                  String.format("  %3d jobs %3d stages %5d tasks  %s%n", c[0], c[1], c[2], d)));
      b.append(String.format("  %3d jobs %3d stages %5d tasks  total%n", jobs, stages, tasks));
    }
    return b.toString();
  }

  /** One line per completed stage: its id, its call site and its job's description. */
  public String stageReport() {
    drain();
    synchronized (byDescription) {
      return stageNames.toString();
    }
  }

  @Override
  public void close() {
    spark.sparkContext().removeSparkListener(listener);
  }
}
