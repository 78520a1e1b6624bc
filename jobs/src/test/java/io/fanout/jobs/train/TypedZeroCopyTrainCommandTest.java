package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun.Result;
import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedStoreFixtures;
import io.fanout.spark.Fanout;
import io.fanout.tensor.CounterRng;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train --feature-access zero-copy|device|auto} on a typed store from the command line
 * (paper: 4 f32 columns, labelled; author: 3 int8 columns; term: no features, a learned embedding):
 * every mode trains the gather's checkpoint byte for byte on {@code cpu} and {@code cpu-checked}, a
 * run resumes under another mode to the checkpoint of one uninterrupted run, and shards with inline
 * rows exit 2 with one line naming the option. Also: {@code --model hgn} from the command line
 * trains the model of the same options through the API (its own attention defaults, not gat's).
 */
@Tag("slow") // two typed samples and seven trainings through the command line: over 15 s
class TypedZeroCopyTrainCommandTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path store;
  static Path shards;

  @BeforeAll
  static void fixtures() {
    spark = SparkTestSession.start("TypedZeroCopyTrainCommandTest");
    store = tmp.resolve("typed.store");
    TypedStoreFixtures.write(
        store,
        graph(),
        new int[][] {{30, 30}, {20, 20}, {10}},
        new int[][][] {null, null, null},
        new String[] {"f32", "int8", null});
    shards = tmp.resolve("shards");
    sample(shards);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** paper (60), author (40), term (10); writes, cites and has_term into paper, seeded. */
  static ArrayTypedGraph graph() {
    int papers = 60;
    int[] labels = new int[papers];
    byte[] splits = new byte[papers];
    for (int i = 0; i < papers; i++) {
      labels[i] = i % 3;
      splits[i] = (byte) (i < 40 ? 1 : i < 50 ? 2 : 3);
    }
    return ArrayTypedGraph.builder()
        .type("paper", papers, 4, values(1, papers * 4), labels, splits)
        .type("author", 40, 3, values(2, 40 * 3), null, null)
        .type("term", 10, 0, null, null, null)
        .relation("writes", "author", "paper", ends(3, 150, 40), ends(4, 150, papers))
        .relation("cites", "paper", "paper", ends(5, 120, papers), ends(6, 120, papers))
        .relation("has_term", "term", "paper", ends(7, 80, 10), ends(8, 80, papers))
        .build();
  }

  static float[] values(int stream, int n) {
    float[] a = new float[n];
    long key = CounterRng.key(17, stream, 0, 0);
    for (int i = 0; i < n; i++) {
      a[i] = 2f * CounterRng.uniform(key, i) - 1f;
    }
    return a;
  }

  static int[] ends(int stream, int n, int range) {
    int[] a = new int[n];
    long key = CounterRng.key(17, stream, 1, 0);
    for (int i = 0; i < n; i++) {
      a[i] = (int) (CounterRng.uniform(key, i) * range);
    }
    return a;
  }

  static void sample(Path out, String... more) {
    String[] head = {
      "sample",
      "--graph",
      store.toString(),
      "--output",
      out.toString(),
      "--fanouts",
      "*=3,2",
      "--batch-size",
      "8",
      "--epochs",
      "1",
      "--seed",
      "3"
    };
    String[] all = java.util.Arrays.copyOf(head, head.length + more.length);
    System.arraycopy(more, 0, all, head.length, more.length);
    Result r = cli(all);
    assertThat(r.code()).as(r.err()).isZero();
  }

  static Result train(Path shardDir, String name, String epochs, String... more) {
    String[] head = {
      "--model", "rgcn", "--hidden", "8", "--epochs", epochs, "--seed", "5", "--progress", "none"
    };
    String[] all = java.util.Arrays.copyOf(head, head.length + more.length);
    System.arraycopy(more, 0, all, head.length, more.length);
    return cli(TrainFixtures.trainArgs(store, shardDir, tmp.resolve(name), all));
  }

  static byte[] checkpoint(String name, String... more) throws Exception {
    Result r = train(shards, name, "2", more);
    assertThat(r.code()).as(name + ": " + r.err()).isZero();
    return Files.readAllBytes(tmp.resolve(name).resolve("checkpoint.bin"));
  }

  @Test
  void everyFeatureAccessTrainsTheGathersModelAndAResumeMayChangeIt() throws Exception {
    byte[] gather = checkpoint("gather", "--backend", "cpu", "--feature-access", "gather");
    assertThat(checkpoint("zero-copy", "--backend", "cpu", "--feature-access", "zero-copy"))
        .isEqualTo(gather);
    assertThat(checkpoint("device", "--backend", "cpu-checked", "--feature-access", "device"))
        .isEqualTo(gather);
    assertThat(checkpoint("auto", "--backend", "cpu", "--feature-access", "auto"))
        .isEqualTo(gather);
    Result first = train(shards, "halves", "1", "--backend", "cpu");
    assertThat(first.code()).as(first.err()).isZero();
    Result rest =
        train(
            shards, "halves", "2", "--backend", "cpu", "--feature-access", "zero-copy", "--resume");
    assertThat(rest.code()).as(rest.err()).isZero();
    assertThat(Files.readAllBytes(tmp.resolve("halves").resolve("checkpoint.bin")))
        .isEqualTo(gather);
  }

  @Test
  void hgnFromTheCommandLineTrainsTheApisModel() throws Exception {
    String[] args = {
      "--model",
      "hgn",
      "--hidden",
      "4",
      "--epochs",
      "2",
      "--seed",
      "5",
      "--backend",
      "cpu",
      "--progress",
      "none"
    };
    Result r = cli(TrainFixtures.trainArgs(store, shards, tmp.resolve("hgn-cli"), args));
    assertThat(r.code()).as(r.err()).isZero();
    Path api = tmp.resolve("hgn-api");
    Fanout.get(spark)
        .train(store.toString(), shards.toString())
        .option("model-dir", api.toString())
        .option("model", "hgn")
        .option("hidden", "4")
        .option("epochs", "2")
        .option("seed", "5")
        .option("backend", "cpu")
        .execute();
    assertThat(Files.readAllBytes(tmp.resolve("hgn-cli").resolve("checkpoint.bin")))
        .isEqualTo(Files.readAllBytes(api.resolve("checkpoint.bin")));
  }

  @Test
  void shardsWithInlineRowsAreRefusedWithOneLine() {
    Path inline = tmp.resolve("inline-shards");
    sample(inline, "--features", "f32");
    Result r = train(inline, "inline", "1", "--feature-access", "zero-copy");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err().strip())
        .contains("train --feature-access zero-copy: --shards " + inline)
        .doesNotContain("\n");
    assertThat(tmp.resolve("inline").resolve("checkpoint.bin")).doesNotExist();
  }
}
