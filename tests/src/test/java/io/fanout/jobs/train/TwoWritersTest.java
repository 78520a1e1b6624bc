package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun.Result;
import io.fanout.graph.GraphStore;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two writers started together on one output, for every kind of output: a graph store ({@code
 * prepare}), a quantized store ({@code quantize}), shards ({@code sample}), predictions ({@code
 * infer}) and generated tables ({@code generate}); model dirs are {@code ModelDirWriterTest}'s. One
 * writer wins; the other exits 0 only when it found the same request done, else 2 with one line
 * (another writer holds it, or it holds another request), and the output is whole afterwards with
 * no leftovers of either beside it.
 */
@Tag("slow")
class TwoWritersTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path cora;
  static Path store;
  static Path model;

  @BeforeAll
  static void fixtures() throws Exception {
    spark = SparkTestSession.start("TwoWritersTest");
    cora = SparkTestSession.dataset("cora");
    TrainFixtures.Graph graph = TrainFixtures.graph(7, 300, 12);
    store = tmp.resolve("fixture-store");
    TrainFixtures.writeStore(store, graph);
    Path shards = tmp.resolve("fixture-shards");
    TrainFixtures.writeShards(shards, store, graph, new int[] {5, 5}, 64, 1, 1);
    model = tmp.resolve("fixture-model");
    Result r =
        cli(TrainFixtures.trainArgs(store, shards, model, "--epochs", "1", "--progress", "none"));
    assertThat(r.code()).as(r.err()).isZero();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Runs both command lines at once; returns their results in order. */
  private static List<Result> race(List<String> a, List<String> b) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<Result>> fs = new ArrayList<>();
      for (List<String> args : List.of(a, b)) {
        List<String> line = new ArrayList<>(args);
        line.addAll(List.of("--progress", "none"));
        fs.add(
            pool.submit(
                () -> {
                  go.await();
                  return cli(line);
                }));
      }
      go.countDown();
      List<Result> out = new ArrayList<>();
      for (Future<Result> f : fs) {
        out.add(f.get());
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * One writer won; a loser says why in one line. {@code sameRequest}: whether the two asked for
   * the same output, which the second may find done and keep (exit 0).
   */
  private static void oneWins(List<Result> rs, Path out, boolean sameRequest) throws Exception {
    List<Integer> codes = new ArrayList<>();
    for (Result r : rs) {
      codes.add(r.code());
      if (r.code() != 0) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        List<String> lines = r.err().strip().lines().filter(l -> l.startsWith("fanout ")).toList();
        assertThat(lines).as(r.err()).hasSize(1);
        assertThat(lines.get(0)).contains(out.getFileName().toString());
        assertThat(lines.get(0)).containsAnyOf("another writer", "--overwrite");
        assertThat(r.err()).doesNotContain("\tat ");
      }
    }
    assertThat(codes).contains(0);
    if (!sameRequest) {
      assertThat(codes).containsExactlyInAnyOrder(0, 2);
    }
    try (Stream<Path> s = Files.list(out.getParent())) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .as("no lock, staging or set-aside folder of either writer is left")
          .noneMatch(n -> n.startsWith("." + out.getFileName()));
    }
  }

  private static void storeIsWhole(Path s) {
    try (GraphStore g = GraphStore.open(s)) {
      assertThat(g.verifyChecksums()).isPositive();
    }
  }

  @Test
  void twoPreparesOfOneStore() throws Exception {
    Path out = tmp.resolve("race-store/store");
    List<String> base =
        List.of(
            "prepare",
            "--vertices",
            cora.resolve("vertices.parquet").toString(),
            "--edges",
            cora.resolve("edges.parquet").toString(),
            "--output",
            out.toString());
    List<String> one = new ArrayList<>(base);
    one.addAll(List.of("--partitions", "1"));
    List<String> two = new ArrayList<>(base);
    two.addAll(List.of("--partitions", "2"));
    oneWins(race(one, two), out, false);
    storeIsWhole(out);

    // the store's derived outputs, each raced on one output
    Path shards = tmp.resolve("race-shards/shards");
    List<String> sample =
        List.of(
            "sample",
            "--graph",
            out.toString(),
            "--output",
            shards.toString(),
            "--batch-size",
            "256",
            "--fanouts",
            "3,3");
    List<String> s1 = new ArrayList<>(sample);
    s1.addAll(List.of("--seed", "1"));
    List<String> s2 = new ArrayList<>(sample);
    s2.addAll(List.of("--seed", "2"));
    oneWins(race(s1, s2), shards, false);
    assertThat(Files.readString(shards.resolve("manifest.json"))).contains("\"batches\"");

    Path quantized = tmp.resolve("race-quantized/q");
    List<String> q = List.of("quantize", out.toString(), "--output", quantized.toString());
    List<String> q1 = new ArrayList<>(q);
    q1.addAll(List.of("--feature-encoding", "f16"));
    List<String> q2 = new ArrayList<>(q);
    q2.addAll(List.of("--feature-encoding", "int8"));
    oneWins(race(q1, q2), quantized, false);
    storeIsWhole(quantized);
  }

  @Test
  void twoInferencesOfOnePredictionOutput() throws Exception {
    Path pred = tmp.resolve("race-pred/pred");
    List<String> infer =
        List.of(
            "infer",
            "--graph",
            store.toString(),
            "--model-dir",
            model.toString(),
            "--output",
            pred.toString());
    oneWins(race(infer, infer), pred, true);
    String success = Files.readString(pred.resolve("_SUCCESS"));
    assertThat(success).contains("\"rows\":300");
  }

  @Test
  void twoGeneratesOfOneFolder() throws Exception {
    Path out = tmp.resolve("race-generated/tables");
    List<String> gen =
        List.of(
            "generate",
            "--output",
            out.toString(),
            "--num-vertices",
            "500",
            "--num-edges",
            "2000",
            "--feature-dim",
            "4");
    List<String> g1 = new ArrayList<>(gen);
    g1.addAll(List.of("--seed", "1"));
    List<String> g2 = new ArrayList<>(gen);
    g2.addAll(List.of("--seed", "2"));
    oneWins(race(g1, g2), out, false);
    assertThat(out.resolve("vertices.parquet/_SUCCESS")).exists();
    assertThat(out.resolve("edges.parquet/_SUCCESS")).exists();
  }
}
