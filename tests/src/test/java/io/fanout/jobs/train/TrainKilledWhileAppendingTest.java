package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code train} process killed ({@code kill -9}) while it appends epochs to {@code
 * metrics.jsonl}, then resumed: the resumed run takes the model dir over (the killed writer's lock
 * died with it), cuts a torn tail if the kill left one, and ends with a metrics file that parses
 * line by line, each epoch once and in order, and a checkpoint of every epoch.
 */
@Tag("slow")
class TrainKilledWhileAppendingTest {
  @TempDir Path tmp;
  static final ObjectMapper JSON = new ObjectMapper();
  static final int EPOCHS = 400;

  @Test
  void aKilledTrainResumesWithEveryEpochOnce() throws Exception {
    TrainFixtures.Graph graph = TrainFixtures.graph(11, 200, 8);
    Path store = tmp.resolve("store");
    TrainFixtures.writeStore(store, graph);
    Path shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, graph, new int[] {3}, 50, 1, 1);
    Path md = tmp.resolve("model");
    List<String> args =
        List.of(
            TrainFixtures.trainArgs(
                store, shards, md, "--epochs", Integer.toString(EPOCHS), "--hidden", "8"));
    Process child =
        ChildCli.builder("1g", args)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    Path metrics = md.resolve("metrics.jsonl");
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      // kill while epochs are being appended: after a few lines, before the last
      while (lines(metrics) < 5 && child.isAlive() && System.nanoTime() < deadline) {
        Thread.sleep(2);
      }
      assertThat(child.isAlive()).as("the child trains long enough to be killed").isTrue();
    } finally {
      child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    int done = Checkpoint.read(md).epochs();
    assertThat(done).isBetween(1, EPOCHS - 1);

    SparkSession spark = SparkTestSession.start("TrainKilledWhileAppendingTest");
    try {
      List<String> resume = new ArrayList<>(args);
      resume.addAll(List.of("--resume", "--progress", "none"));
      Result r = cli(resume);
      assertThat(r.code()).as(r.err()).isZero();
    } finally {
      spark.stop();
    }
    List<Integer> epochs = new ArrayList<>();
    for (String line : Files.readAllLines(metrics)) {
      epochs.add(JSON.readTree(line).get("epoch").asInt()); // every line parses
    }
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < EPOCHS; i++) {
      expected.add(i);
    }
    assertThat(epochs).isEqualTo(expected);
    assertThat(Checkpoint.read(md).epochs()).isEqualTo(EPOCHS);
    assertThat(tmp.resolve(".model.lock")).doesNotExist();
  }

  private static long lines(Path f) {
    try {
      return Files.exists(f) ? Files.readAllLines(f).size() : 0;
    } catch (Exception e) {
      return 0;
    }
  }
}
