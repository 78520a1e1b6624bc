package io.fanout.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.cli.CliRun;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/fanout quickstart --task link} on the bundled cora, shortened to a few epochs: the
 * pipeline runs through the CLI, ends with the test AUC, and {@code evaluate} reads the task from
 * the model dir.
 */
class LinkQuickstartTest {
  static SparkSession spark;
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("LinkQuickstartTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void coraLinkPredictionEndsWithTheTestAuc() throws Exception {
    CliRun.Result r =
        CliRun.cli("quickstart", "--task", "link", "--epochs", "3", "--work-dir", tmp.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("test AUC:");
    JsonNode j = r.json();
    assertThat(j.get("task").asText()).isEqualTo("link");
    // an untrained or leaking model scores about 0.5 on the fixed negatives
    assertThat(j.get("test_auc").asDouble()).isGreaterThan(0.75);
    String store = tmp.resolve("store-link").toString();
    String model = j.get("model_dir").asText();
    CliRun.Result ev = CliRun.cli("evaluate", "--graph", store, "--model-dir", model);
    assertThat(ev.code()).as(ev.err()).isZero();
    JsonNode e = ev.json();
    assertThat(e.get("task").asText()).isEqualTo("link");
    assertThat(e.get("test").get("auc").asDouble())
        .isCloseTo(j.get("test_auc").asDouble(), org.assertj.core.api.Assertions.within(1e-4));
    assertThat(e.get("test").get("positives").asLong()).isPositive();
    assertThat(e.get("test").get("negatives").asLong())
        .isEqualTo(e.get("test").get("positives").asLong());
    CliRun.Result sampled =
        CliRun.cli("evaluate", "--graph", store, "--model-dir", model, "--neighbors", "sampled");
    assertThat(sampled.code()).isEqualTo(2);
    assertThat(sampled.err()).contains("link-prediction model runs full-neighbor inference");
  }
}
