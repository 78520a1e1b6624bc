package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code prepare --dry-run} under a shuffle codec other than Spark's default, set on the context as
 * a user would: the plan names the codec in a note and stays within 2x of the run on the graphs of
 * {@link PrepareDryRunTest}. A subclass per codec (one SparkSession each).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ShuffleCodecDryRunCheck {
  SparkSession spark;
  @TempDir Path tmp;

  /** The Spark conf that selects the codec. */
  abstract Map<String, String> conf();

  /** What the plan's note on the codec says. */
  abstract String note();

  @BeforeAll
  void start() {
    spark = SparkTestSession.start(getClass().getSimpleName(), conf());
  }

  @AfterAll
  void stop() {
    spark.stop();
  }

  @Test
  void plansAreWithinTwiceTheRun() {
    assertThat(PrepareDryRunTest.compareGenerated(spark, tmp).describe()).contains(note());
    assertThat(PrepareDryRunTest.compareCora(spark, tmp).describe()).contains(note());
  }
}
