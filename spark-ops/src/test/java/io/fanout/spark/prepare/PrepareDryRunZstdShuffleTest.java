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
 * {@code prepare --dry-run} with shuffle files compressed by ZStandard ({@code
 * spark.io.compression.codec=zstd}, set on the context as a user would): the plan scales LZ4's fit
 * by {@link ShuffleCodec#ZSTD_FACTOR}, says so, and stays within 2x of the run.
 */
class PrepareDryRunZstdShuffleTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark =
        SparkTestSession.start(
            "PrepareDryRunZstdShuffleTest", Map.of("spark.io.compression.codec", "zstd"));
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void plansAreWithinTwiceTheRun() {
    assertThat(PrepareDryRunTest.compareGeneratedAndCora(spark, tmp).describe())
        .contains("shuffle sizes for zstd");
  }
}
