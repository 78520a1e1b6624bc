package io.fanout.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;

/**
 * Records the description ({@code spark.job.description}) of every Spark job started while it is
 * open, to check how a command labels its jobs.
 */
public final class JobDescriptions implements AutoCloseable {
  private final SparkSession spark;
  private final List<String> seen = new ArrayList<>();
  private final SparkListener listener =
      new SparkListener() {
        @Override
        public void onJobStart(SparkListenerJobStart start) {
          synchronized (seen) {
            seen.add(String.valueOf(start.properties().getProperty("spark.job.description")));
          }
        }
      };

  private JobDescriptions(SparkSession spark) {
    this.spark = spark;
    spark.sparkContext().addSparkListener(listener);
  }

  /** Starts recording the jobs of {@code spark}. */
  public static JobDescriptions record(SparkSession spark) {
    return new JobDescriptions(spark);
  }

  /** The descriptions of the jobs started so far, once the listeners have heard of them all. */
  public List<String> seen() throws TimeoutException {
    spark.sparkContext().listenerBus().waitUntilEmpty();
    synchronized (seen) {
      return new ArrayList<>(seen);
    }
  }

  @Override
  public void close() {
    spark.sparkContext().removeSparkListener(listener);
  }
}
