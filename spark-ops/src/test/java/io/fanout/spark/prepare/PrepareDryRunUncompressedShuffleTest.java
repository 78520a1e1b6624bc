package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code prepare --dry-run} with shuffle files not compressed ({@code
 * spark.shuffle.compress=false}, set on the context as a user would): the plan counts the rows at
 * their raw width (LZ4's fit would be about 5x too low), says so, and stays within 2x of the run.
 */
class PrepareDryRunUncompressedShuffleTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark =
        SparkTestSession.start(
            "PrepareDryRunUncompressedShuffleTest", Map.of("spark.shuffle.compress", "false"));
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void plansAreWithinTwiceTheRun() {
    assertThat(PrepareDryRunTest.compareGeneratedAndCora(spark, tmp).describe())
        .contains("shuffle files are not compressed");
  }
}
