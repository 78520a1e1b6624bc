package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train --workers 2}: two trainers in a barrier stage of the shared {@code local[2]}
 * session, gradients over TCP between them.
 */
class DistributedTrainCommandTest {
  @TempDir static Path tmp;
  static Path store;
  static Path shards;
  static SparkSession spark;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void fixtures() throws Exception {
    spark = SparkTestSession.start("dist-train");
    TrainFixtures.Graph g = TrainFixtures.graph(3, 300, 12);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, g);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, g, new int[] {5, 5}, 16, 2, 1);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static Result train(Path md, String... extra) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "train",
                "--graph",
                store.toString(),
                "--shards",
                shards.toString(),
                "--model-dir",
                md.toString(),
                "--epochs",
                "5",
                "--hidden",
                "32",
                "--lr",
                "0.01",
                "--workers",
                "2",
                "--dist-timeout-ms",
                "60000"));
    a.addAll(List.of(extra));
    return cli(a.toArray(new String[0]));
  }

  @Test
  void twoWorkersTrainDeterministicallyAndAccurately() throws Exception {
    Path md = tmp.resolve("model");
    Result t = train(md, "--dist-verify");
    assertThat(t.code()).as(t.err()).isZero();
    JsonNode tj = JSON.readTree(t.out());
    assertThat(tj.get("workers").asInt()).isEqualTo(2);
    assertThat(tj.get("epochs_run").asInt()).isEqualTo(5);
    assertThat(tj.get("stage_attempt").asInt()).isZero();
    assertThat(Files.readAllLines(md.resolve("metrics.jsonl"))).hasSize(5);

    Path again = tmp.resolve("again");
    Result t2 = train(again);
    assertThat(t2.code()).as(t2.err()).isZero();
    assertThat(Checkpoint.read(again).params()).containsExactly(Checkpoint.read(md).params());

    Result eval = cli("evaluate", "--graph", store.toString(), "--model-dir", md.toString());
    assertThat(eval.code()).as(eval.err()).isZero();
    assertThat(JSON.readTree(eval.out()).get("accuracy").get("test").asDouble()).isGreaterThan(0.8);

    // The same command again: the earlier result, skipped; another request: refused in flags.
    Result skipped = train(md);
    assertThat(skipped.code()).as(skipped.err()).isZero();
    assertThat(JSON.readTree(skipped.out()).get("skipped").asBoolean()).isTrue();
    assertThat(JSON.readTree(skipped.out()).get("epochs_run").asInt()).isZero();
    Result refused = train(md, "--seed", "9");
    assertThat(refused.code()).isEqualTo(2);
    assertThat(refused.err()).contains("belongs to another run").contains("--overwrite");
  }

  @Test
  void twoWorkersReuseHotEmbeddingsDeterministically() throws Exception {
    // Each replica ranks its own hot set from its share of the batches and refreshes its own
    // cache from the parameters every replica holds after the exchange; --dist-verify compares the
    // replicas' parameter checksums before every step.
    Path md = tmp.resolve("reuse");
    Result t = train(md, "--dist-verify", "--reuse-hot", "0.2", "--staleness", "2");
    assertThat(t.code()).as(t.err()).isZero();
    assertThat(JSON.readTree(t.out()).get("workers").asInt()).isEqualTo(2);

    Path again = tmp.resolve("reuse-again");
    Result t2 = train(again, "--reuse-hot", "0.2", "--staleness", "2");
    assertThat(t2.code()).as(t2.err()).isZero();
    float[] reuse = Checkpoint.read(md).params();
    assertThat(Arrays.equals(Checkpoint.read(again).params(), reuse)).isTrue();

    Path plain = tmp.resolve("reuse-off");
    Result t3 = train(plain);
    assertThat(t3.code()).as(t3.err()).isZero();
    assertThat(Arrays.equals(Checkpoint.read(plain).params(), reuse))
        .as("reuse changed nothing: no batch reused an embedding")
        .isFalse();

    Result eval = cli("evaluate", "--graph", store.toString(), "--model-dir", md.toString());
    assertThat(eval.code()).as(eval.err()).isZero();
    assertThat(JSON.readTree(eval.out()).get("accuracy").get("test").asDouble()).isGreaterThan(0.8);
  }

  @Test
  void fewerBatchesThanWorkersIsRefusedBeforeAnyTaskRuns() throws Exception {
    Path one = tmp.resolve("one-batch-shards");
    TrainFixtures.writeShards(
        one, store, TrainFixtures.graph(3, 300, 12), new int[] {5, 5}, 100000, 1, 1);
    Path md = tmp.resolve("model-one-batch");
    Result t =
        cli(
            "train",
            "--graph",
            store.toString(),
            "--shards",
            one.toString(),
            "--model-dir",
            md.toString(),
            "--workers",
            "2");
    assertThat(t.code()).as(t.err()).isEqualTo(2);
    assertThat(t.err())
        .contains(one.toString())
        .contains("fewer than the 2 workers")
        .contains("--batch-size");
    assertThat(md.resolve("checkpoint.bin")).doesNotExist();
  }

  @Test
  void aFixedPortForWorkersOnOneHostIsRefusedBeforeTheStage() {
    Path md = tmp.resolve("fixed-port");
    Result r = train(md, "--dist-port", "45678");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err().strip().lines().filter(l -> l.startsWith("fanout train: error: ")))
        .singleElement()
        .asString()
        .contains("'dist-port' of train is 45678 with 2 workers on local[")
        .contains("use --dist-port 0");
    assertThat(r.err()).doesNotContain("\tat ");
    assertThat(md).doesNotExist();
  }
}
