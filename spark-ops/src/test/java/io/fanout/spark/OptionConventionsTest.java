package io.fanout.spark;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark's conventions for the API's options: names in any case and word separator, session keys
 * scoped to one stage ({@code spark.fanout.sample.epochs}) that other stages do not read, and typos
 * of session keys refused. Each call fails on its options before any work, which shows what it
 * read.
 */
class OptionConventionsTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("OptionConventionsTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  SampleAction sample() {
    return Fanout.get(spark)
        .sample(tmp.resolve("store").toString())
        .output(tmp.resolve("shards").toString())
        .progress(null);
  }

  @Test
  void optionNamesTakeAnyCaseAndSeparator() {
    for (String name : new String[] {"batchSize", "BATCH-SIZE", "batch_size", "Batch-Size"}) {
      assertThatThrownBy(() -> sample().option(name, "many").execute())
          .as(name)
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageStartingWith("option 'batch-size' of sample has value 'many'");
    }
    assertThatThrownBy(() -> sample().option("batchSizes", "8").execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageStartingWith("unknown option 'batchSizes' for sample");
  }

  @Test
  void aStageKeyReachesThatStageOnly() {
    spark.conf().set("spark.fanout.sample.epochs", "often");
    try {
      assertThatThrownBy(() -> sample().execute())
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageStartingWith("option 'epochs' of sample has value 'often'");
      // train has epochs too, but reads only its own and the shared key: it gets past its options.
      assertThatThrownBy(
              () ->
                  Fanout.get(spark)
                      .train(tmp.resolve("store").toString(), tmp.resolve("shards").toString())
                      .modelDir(tmp.resolve("model").toString())
                      .progress(null)
                      .execute())
          .message()
          .doesNotContain("epochs");
    } finally {
      spark.conf().unset("spark.fanout.sample.epochs");
    }
  }

  @Test
  void aMistypedStageKeyIsRefusedWithTheClosestName() {
    spark.conf().set("spark.fanout.sample.epohcs", "2");
    try {
      assertThatThrownBy(() -> sample().execute())
          .isInstanceOf(FanoutConfigException.class)
          .hasMessage(
              "unknown configuration key 'spark.fanout.sample.epohcs'; did you mean"
                  + " spark.fanout.sample.epochs?");
    } finally {
      spark.conf().unset("spark.fanout.sample.epohcs");
    }
  }
}
