package io.fanout.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.cli.CliRun;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real pipeline end to end on the bundled cora: prepare -> sample -> train -> evaluate through
 * {@code bin/fanout quickstart}, with the default hyperparameters; then a rerun, which skips every
 * complete step and reports the same accuracy. The other requests share its work dir, as a user's
 * would: they skip its prepare (and its sample where theirs is the same) and train their own model.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class QuickstartTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("QuickstartTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static JsonNode quickstart(Path work) throws Exception {
    CliRun.Result r = CliRun.cli("quickstart", "--work-dir", work.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("test accuracy:");
    return r.json();
  }

  @Test
  @Order(1) // the fresh pipeline, every step run
  void coraEndToEndMeetsTheFloor() throws Exception {
    JsonNode r = quickstart(tmp);
    double full = r.get("test_accuracy").asDouble();
    assertThat(full).isGreaterThanOrEqualTo(0.79);
    assertThat(Math.abs(r.get("test_accuracy_sampled").asDouble() - full)).isLessThan(0.01);
    JsonNode again = quickstart(tmp);
    assertThat(again.get("test_accuracy").asDouble()).isEqualTo(full);
  }

  @Tag("slow")
  @Test
  void coraInt8StoreMeetsTheFloor() throws Exception {
    CliRun.Result r =
        CliRun.cli("quickstart", "--work-dir", tmp.toString(), "--feature-encoding", "int8");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("quantize").contains("store-int8");
    assertThat(r.json().get("model_dir").asText()).endsWith("model-sage-int8-s0");
    assertThat(r.json().get("test_accuracy").asDouble()).isGreaterThanOrEqualTo(0.79);
  }

  /** The reuse options reach train: the checkpoint's identity has each of them. */
  @Test
  void coraWithReuseAndADeferredBackward() throws Exception {
    CliRun.Result r =
        CliRun.cli(
            "quickstart",
            "--work-dir",
            tmp.toString(),
            "--reuse-hot",
            "0.2",
            "--staleness",
            "16",
            "--reuse-refresh",
            "inline",
            "--reuse-backward",
            "deferred");
    assertThat(r.code()).as(r.err()).isZero();
    Path model = Path.of(r.json().get("model_dir").asText());
    assertThat(model.getFileName().toString())
        .isEqualTo("model-sage-reuse0.2-16-inline-deferred-s0");
    assertThat(Checkpoint.read(model).meta())
        .containsEntry("identity.train.reuse_hot", "0.2")
        .containsEntry("identity.train.staleness", "16")
        .containsEntry("identity.train.reuse_refresh", "inline")
        .containsEntry("identity.train.reuse_backward", "deferred");
    assertThat(r.json().get("test_accuracy").asDouble()).isGreaterThanOrEqualTo(0.77);
  }
}
