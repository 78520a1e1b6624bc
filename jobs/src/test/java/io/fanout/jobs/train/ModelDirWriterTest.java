package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import io.fanout.store.OutputLock;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One writer per model dir, and a metrics file that parses after a crash mid-append. */
class ModelDirWriterTest {
  @TempDir static Path tmp;
  static Path store;
  static Path shards;
  static SparkSession spark;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void fixtures() throws Exception {
    spark = SparkTestSession.start("ModelDirWriterTest");
    TrainFixtures.Graph graph = TrainFixtures.graph(3, 300, 12);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, graph);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, graph, new int[] {5, 5}, 32, 2, 1);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static Result train(Path md, int epochs, String... more) {
    return train(md, epochs, 16, more);
  }

  private static Result train(Path md, int epochs, int hidden, String... more) {
    List<String> args =
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
                Integer.toString(epochs),
                "--hidden",
                Integer.toString(hidden)));
    args.addAll(List.of(more));
    return cli(args);
  }

  private static List<Integer> epochs(Path md) throws Exception {
    List<Integer> out = new ArrayList<>();
    for (String line : Files.readAllLines(md.resolve("metrics.jsonl"))) {
      out.add(JSON.readTree(line).get("epoch").asInt()); // every line parses
    }
    return out;
  }

  @Test
  void aHeldModelDirRefusesASecondTrainNamingTheHolder() throws Exception {
    Path md = tmp.resolve("held");
    try (OutputLock other = OutputLock.acquire(md, "model dir")) {
      Result r = train(md, 2);
      assertThat(r.code()).as(r.err()).isEqualTo(2);
      assertThat(r.err())
          .contains("model dir " + md)
          .contains("another writer")
          .contains("pid " + ProcessHandle.current().pid())
          .doesNotContain("\tat ");
      assertThat(md.resolve("metrics.jsonl")).doesNotExist();
    }
    Result r = train(md, 2);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(epochs(md)).containsExactly(0, 1);
  }

  @Test
  void twoIdenticalTrainsStartedTogetherWriteTheMetricsOnce() throws Exception {
    Path md = tmp.resolve("race");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    CountDownLatch go = new CountDownLatch(1);
    List<Result> results = new ArrayList<>();
    try {
      List<Future<Result>> fs = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        fs.add(
            pool.submit(
                () -> {
                  go.await();
                  return train(md, 3);
                }));
      }
      go.countDown();
      for (Future<Result> f : fs) {
        results.add(f.get());
      }
    } finally {
      pool.shutdownNow();
    }
    List<Integer> codes = new ArrayList<>();
    for (Result r : results) {
      codes.add(r.code());
      if (r.code() != 0) {
        // refused by the lock, or by the first one's checkpoint of fewer epochs
        assertThat(r.err()).containsAnyOf("another writer", "already holds a checkpoint");
        assertThat(r.err()).doesNotContain("\tat ");
      }
    }
    // Both succeed only when the first ended before the second began: the second skipped.
    assertThat(codes).contains(0).allMatch(c -> c == 0 || c == 2);
    assertThat(epochs(md)).containsExactly(0, 1, 2);
  }

  @Test
  void aFailedRunReleasesTheLockAndATornMetricsTailIsCutOnResume() throws Exception {
    Path md = tmp.resolve("torn");
    Result first = train(md, 2);
    assertThat(first.code()).as(first.err()).isZero();
    // A resume of another architecture fails inside the run, after the lock is taken.
    Result wrong = train(md, 3, 8, "--resume");
    assertThat(wrong.code()).as(wrong.err()).isEqualTo(2);
    // A crash while appending epoch 2's line, before its checkpoint: a torn last line.
    Files.writeString(
        md.resolve("metrics.jsonl"), "{\"epoch\":2,\"loss\":0.5", StandardOpenOption.APPEND);
    Result resumed = train(md, 4, "--resume");
    assertThat(resumed.code()).as(resumed.err()).isZero();
    assertThat(resumed.err()).contains("torn last line");
    assertThat(epochs(md)).containsExactly(0, 1, 2, 3);
    assertThat(tmp.resolve(".torn.lock")).doesNotExist();
  }
}
