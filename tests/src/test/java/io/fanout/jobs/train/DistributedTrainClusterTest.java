package io.fanout.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun;
import io.fanout.spark.internal.Hooks;
import io.fanout.train.Checkpoint;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/fanout train} with the real GNN trainer on {@code local-cluster[2,1,1024]}: two
 * executor JVMs, one trainer each. Lives in the trainer's package for its fixtures.
 */
@Tag("cluster")
class DistributedTrainClusterTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path store;
  static Path shards;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    System.setProperty("spark.testing", "1");
    System.setProperty("spark.test.home", new File("target/spark-test-home").getAbsolutePath());
    spark =
        SparkSession.builder()
            .master("local-cluster[2,1,1024]")
            .appName("dist-train-it")
            .config("spark.executorEnv.SPARK_SCALA_VERSION", "2.13")
            .config(Hooks.REDUCER_DECORATOR, ExitOnceAfterSteps.class.getName())
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.ui.enabled", "false")
            .config("spark.barrier.sync.timeout", "120s")
            .getOrCreate();
    TrainFixtures.Graph g = TrainFixtures.graph(3, 300, 12);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, g);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, g, new int[] {5, 5}, 16, 2, 1);
  }

  @AfterAll
  static void stop() {
    try {
      spark.stop();
    } finally {
      System.clearProperty("spark.testing");
      System.clearProperty("spark.test.home");
    }
  }

  static JsonNode train(Path md) throws Exception {
    CliRun.Result r =
        CliRun.cli(
            "train",
            "--graph",
            store.toString(),
            "--shards",
            shards.toString(),
            "--model-dir",
            md.toString(),
            "--epochs",
            "4",
            "--hidden",
            "32",
            "--lr",
            "0.01",
            "--dist-verify",
            "--dist-timeout-ms",
            "60000");
    assertThat(r.code()).as(r.err()).isZero();
    return r.json();
  }

  @Test
  void aKilledExecutorEndsInTheSameModelAsAnUninterruptedRun() throws Exception {
    // A cluster master and no --workers: one trainer per executor slot.
    Path clean = tmp.resolve("clean");
    JsonNode a = train(clean);
    assertThat(a.get("workers").asInt()).isEqualTo(2);
    assertThat(a.get("epochs_run").asInt()).isEqualTo(4);
    List<String> metrics = Files.readAllLines(clean.resolve("metrics.jsonl"));
    int steps = JSON.readTree(metrics.get(0)).get("batches").asInt();
    assertThat(steps).isGreaterThan(1);

    // Rank 1's executor exits in the middle of epoch 2 (0-based), after the epoch-1 checkpoint.
    Path killed = tmp.resolve("killed");
    Files.createDirectories(killed);
    Files.writeString(killed.resolve(ExitOnceAfterSteps.FILE), "1 " + (2 * steps + steps / 2));
    JsonNode b = train(killed);
    assertThat(Files.exists(killed.resolve(ExitOnceAfterSteps.FILE + ".fired"))).isTrue();
    assertThat(b.get("stage_attempt").asInt()).as("the barrier stage was retried").isPositive();
    assertThat(b.get("epochs_run").asInt()).as("epochs run by the last attempt").isEqualTo(2);
    assertThat(Checkpoint.read(killed).epochs()).isEqualTo(4);
    assertThat(Checkpoint.read(killed).params()).containsExactly(Checkpoint.read(clean).params());
  }
}
