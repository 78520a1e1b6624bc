package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.cli.CliRun.Result;
import io.fanout.graph.GraphStore;
import io.fanout.nn.FeatureNormKind;
import io.fanout.shard.ShardManifest;
import io.fanout.spark.Fanout;
import io.fanout.store.Checksums;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.BatchStream;
import io.fanout.train.EpochData;
import io.fanout.train.ShardSet;
import io.fanout.train.TrainBatch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * train, evaluate and infer check what they read: one flipped bit in a graph store's feature, CSR
 * or nodes file, or in a shard part, is refused (exit status 2, one line naming the file, both
 * checksums and the rerun that recovers) before it is used; {@code --verify false} skips the
 * checks. The flips below keep the data valid, as silent damage would: only the checksum can tell.
 */
class VerifyReadsTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static TrainFixtures.Graph graph;
  static Path store;
  static Path shards;
  static Path model;

  @BeforeAll
  static void fixtures() throws Exception {
    spark = SparkTestSession.start("VerifyReadsTest");
    graph = TrainFixtures.graph(5, 90, 6);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, graph);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, graph, new int[] {3, 3}, 8, 2, 1);
    model = tmp.resolve("model");
    Result t = train(store, shards, model, "--epochs", "2");
    assertThat(t.code()).as(t.err()).isZero();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @ParameterizedTest
  @ValueSource(strings = {"features", "csr", "nodes"})
  void aFlippedBitInAStoreFileStopsTrainEvaluateAndInfer(String kind) throws Exception {
    Path damaged = copy(store, tmp.resolve("store-" + kind));
    String rel = damage(damaged, kind);
    Path file = StoreManifest.read(damaged).dataRoot(damaged).resolve(rel);
    String line =
        ": error: "
            + file
            + ": CRC32C "
            + Checksums.crc32c(file)
            + ", expected "
            + StoreManifest.read(damaged).file(rel).crc32c
            + " from "
            + damaged.resolve(StoreLayout.MANIFEST)
            + "; the graph store is damaged: rerun prepare with --overwrite";
    Path md = tmp.resolve("model-" + kind);
    Path pred = tmp.resolve("predictions-" + kind);
    assertRefused(train(damaged, shards, md), "fanout train" + line);
    assertRefused(evaluate(damaged), "fanout evaluate" + line);
    assertRefused(infer(damaged, pred), "fanout infer" + line);
    assertThat(md).doesNotExist();
    assertThat(pred).doesNotExist();

    for (Result r :
        List.of(
            train(damaged, shards, md, "--epochs", "1", "--verify", "false"),
            evaluate(damaged, "--verify", "false"),
            infer(damaged, pred, "--verify", "false"))) {
      assertThat(r.code()).as(r.err()).isZero();
    }
  }

  @Test
  void theApiVerifiesByDefaultAndTakesTheSameOptOut() throws Exception {
    Path damaged = copy(store, tmp.resolve("store-api"));
    Path file = StoreManifest.read(damaged).dataRoot(damaged).resolve(damage(damaged, "features"));
    assertThatThrownBy(
            () -> Fanout.get(spark).evaluate(damaged.toString(), model.toString()).execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(file + ": CRC32C");
    assertThat(
            Fanout.get(spark)
                .evaluate(damaged.toString(), model.toString())
                .option("verify", "false")
                .execute()
                .accuracy("test"))
        .isBetween(0.0, 1.0);
  }

  @Test
  void aFlippedBitInAShardPartStopsTrainingBeforeAnyOfItsBatches() throws Exception {
    Path damaged = copy(shards, tmp.resolve("shards-damaged"));
    Path part =
        io.fanout.shard.ShardManifest.read(damaged)
            .dataRoot(damaged)
            .resolve("epoch-0001/part-00000.parquet");
    String expected = Checksums.crc32c(part);
    flip(part, Files.size(part) / 2);
    String message =
        part
            + ": CRC32C "
            + Checksums.crc32c(part)
            + ", expected "
            + expected
            + " from "
            + damaged.resolve(ShardManifest.FILE)
            + "; the shard part is damaged: rerun sample with --overwrite";

    // The loader hands out every batch of the intact part and none of the damaged one.
    try (GraphStore g = GraphStore.open(store)) {
      EpochData d =
          ShardSet.open(damaged)
              .epochData(g.features(), g.features().dim(), FeatureNormKind.NONE, 1, 1, true);
      int batches = 0;
      try (BatchStream s = d.open(0)) {
        for (TrainBatch b = s.next(); b != null; b = s.next()) {
          s.recycle(b);
          batches++;
        }
      }
      assertThat(batches).isEqualTo(d.batches(0)).isPositive();
      try (BatchStream s = d.open(1)) {
        assertThatThrownBy(s::next).isInstanceOf(InvalidInputException.class).hasMessage(message);
      }
    }

    Path md = tmp.resolve("model-shards-damaged");
    assertRefused(train(store, damaged, md, "--epochs", "2"), "fanout train: error: " + message);
    assertThat(Files.readAllLines(md.resolve("metrics.jsonl"))).hasSize(1);
  }

  private static void assertRefused(Result r, String line) {
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err().lines()).contains(line);
    assertThat(r.err()).doesNotContain("\tat ");
  }

  /**
   * Flips one bit of {@code kind}'s file in {@code store} where the data stays valid: the lowest
   * bit of a feature value, of an even neighbor id (which becomes the next vertex) or of vertex 0's
   * label (0 becomes 1 of the 3 classes). Returns the file's path in the store.
   */
  private static String damage(Path store, String kind) throws Exception {
    int n = graph.n();
    long at = StoreLayout.HEADER_BYTES;
    String rel;
    if (kind.equals("features")) {
      rel = StoreLayout.featuresFile(0);
    } else if (kind.equals("nodes")) {
      rel = StoreLayout.nodesFile(0);
    } else {
      rel = StoreLayout.csrFile(0);
      long j = 0;
      search:
      for (int[] row : graph.rows) {
        for (int u : row) {
          if (u % 2 == 0 && u + 1 < n) {
            break search;
          }
          j++;
        }
      }
      at += 8L * (n + 1) + 4 * j;
    }
    flip(StoreManifest.read(store).dataRoot(store).resolve(rel), at);
    return rel;
  }

  private static void flip(Path file, long at) throws Exception {
    byte[] b = Files.readAllBytes(file);
    b[(int) at] ^= 1;
    Files.write(file, b);
  }

  private static Path copy(Path from, Path to) throws Exception {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Files.copy(
            p, to.resolve(from.relativize(p).toString()), StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
    return to;
  }

  private static Result train(Path store, Path shards, Path md, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                TrainFixtures.trainArgs(store, shards, md, "--hidden", "8", "--log-every", "0")));
    args.addAll(List.of(more));
    return cli(args);
  }

  private static Result evaluate(Path store, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of("evaluate", "--graph", store.toString(), "--model-dir", model.toString()));
    args.addAll(List.of(more));
    return cli(args);
  }

  private static Result infer(Path store, Path out, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "infer",
                "--graph",
                store.toString(),
                "--model-dir",
                model.toString(),
                "--output",
                out.toString()));
    args.addAll(List.of(more));
    return cli(args);
  }
}
