package io.fanout.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.spark.Fanout;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile option lines: each is refused with exit 2 and one line naming the option or value, with
 * no stack trace, before any output is written.
 */
class OptionAbuseTest {
  @TempDir static Path tmp;
  static SparkSession spark;

  @BeforeAll
  static void session() {
    spark = SparkTestSession.start("OptionAbuseTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static String refused(String... args) {
    CliRun.Result r = CliRun.cli(args);
    String line = String.join(" ", args);
    assertThat(r.code()).as(line + "\n" + r.err()).isEqualTo(2);
    assertThat(r.err()).as(line).startsWith("fanout " + args[0] + ": error: ");
    assertThat(r.err().strip()).as(line).doesNotContain("\n");
    assertThat(r.err()).as(line).doesNotContain("\tat ");
    return r.err();
  }

  private String graph() {
    return tmp.resolve("graph").toString();
  }

  private String modelDir() {
    return tmp.resolve("model").toString();
  }

  @Test
  void anInfiniteOrNanNumberIsRefused() {
    assertThat(refused("train", "--lr", "Infinity", "--graph", graph(), "--model-dir", modelDir()))
        .contains("option 'lr' of train has value 'Infinity': expected a finite number");
    assertThat(refused("train", "--lr=NaN", "--graph", graph(), "--model-dir", modelDir()))
        .contains("'lr'")
        .contains("'NaN'");
  }

  @Test
  void aStrayPositionalIsRefusedByEveryCommandThatTakesNone() {
    assertThat(refused("train", "extra", "--graph", graph(), "--model-dir", modelDir()))
        .contains("train takes no positional arguments, got [extra]");
    assertThat(refused("evaluate", "--graph", graph(), "extra", "--model-dir", modelDir()))
        .contains("evaluate takes no positional arguments, got [extra]");
    assertThat(refused("sample", "extra")).contains("sample takes no positional arguments");
  }

  @Test
  void aMisspeltFanoutKeyIsRefusedWithTheClosestName() {
    assertThat(
            refused(
                "train",
                "--conf",
                "spark.fanout.hiden=16",
                "--graph",
                graph(),
                "--model-dir",
                modelDir()))
        .contains("unknown configuration key 'spark.fanout.hiden'")
        .contains("did you mean spark.fanout.hidden?");
  }

  @Test
  void aMisspeltFanoutKeyInTheSessionIsRefusedByTheApi() {
    spark.conf().set("spark.fanout.hiden", "16");
    try {
      assertThatThrownBy(
              () ->
                  Fanout.get(spark)
                      .evaluate(graph(), modelDir())
                      .option("neighbors", "full")
                      .execute())
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageContaining("did you mean spark.fanout.hidden?");
    } finally {
      spark.conf().unset("spark.fanout.hiden");
    }
  }

  @Test
  void fanoutsUnderFullNeighborInferenceAreRefused() {
    assertThat(
            refused(
                "evaluate",
                "--neighbors",
                "full",
                "--fanouts",
                "3,3",
                "--graph",
                graph(),
                "--model-dir",
                modelDir()))
        .contains("option 'fanouts' of evaluate is ignored: --neighbors full");
    assertThat(
            refused(
                "infer",
                "--fanouts",
                "3,3",
                "--graph",
                graph(),
                "--model-dir",
                modelDir(),
                "--output",
                tmp.resolve("pred").toString()))
        .contains("option 'fanouts' of infer is ignored: --neighbors full");
    assertThat(tmp.resolve("pred")).doesNotExist();
  }

  @Test
  void negativesOfANodeSampleAreRefused() {
    assertThat(
            refused(
                "sample",
                "--graph",
                graph(),
                "--output",
                tmp.resolve("shards").toString(),
                "--num-negatives",
                "5"))
        .contains("option 'num-negatives' of sample is ignored: --task node");
    assertThat(tmp.resolve("shards")).doesNotExist();
  }

  @Test
  void anOptionFollowedByAnotherOptionIsMissingItsValue() {
    assertThat(refused("sample", "--batch-size", "--fanouts", "5,5"))
        .contains("option --batch-size needs a value, got the option --fanouts instead");
  }

  @Test
  void anEmptyPathIsRefusedAsEmpty() {
    assertThat(refused("sample", "--graph", graph(), "--output", ""))
        .contains("option 'output' of sample is empty");
    assertThat(refused("train", "--graph", "", "--model-dir", modelDir()))
        .contains("option 'graph' of train is empty");
  }

  @Test
  void aPortOutsideTcpsRangeIsRefused() {
    assertThat(
            refused("train", "--dist-port", "70000", "--graph", graph(), "--model-dir", modelDir()))
        .contains("option 'dist-port' of train has value 70000; expected a TCP port, 0..65535");
    assertThat(tmp.resolve("model")).doesNotExist();
  }

  @Test
  void aMasterWithNoThreadsIsRefusedBeforeSparkStarts() {
    assertThat(
            refused(
                "sample",
                "--master",
                "local[0]",
                "--graph",
                graph(),
                "--output",
                tmp.resolve("shards0").toString()))
        .contains("--master 'local[0]' asks for no threads or workers; expected at least 1");
    assertThat(refused("sample", "--master", "local-cluster[0,1,1024]", "--graph", graph()))
        .contains("'local-cluster[0,1,1024]'");
    assertThat(tmp.resolve("shards0")).doesNotExist();
  }

  @Test
  void aHeapTooSmallForSparkNamesFanoutJavaOpts() {
    assertThatThrownBy(() -> SparkDriverHeap.check(java.util.Map.of(), 300L << 20))
        .isInstanceOf(io.fanout.store.InvalidInputException.class)
        .hasMessageContaining("the Java heap is 300 MiB (max heap), below the 450 MiB Spark needs")
        .hasMessageContaining("FANOUT_JAVA_OPTS=-Xmx8g");
    SparkDriverHeap.check(java.util.Map.of(), SparkDriverHeap.MIN_BYTES);
  }
}
