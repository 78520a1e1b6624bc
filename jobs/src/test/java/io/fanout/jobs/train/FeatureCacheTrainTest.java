package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun.Result;
import io.fanout.graph.GraphStore;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train --feature-cache}: features read from disk through a row cache train the same model,
 * bit for bit, as the memory-mapped store on the same shards, for every policy; bad cache options
 * exit 2 with one line.
 */
class FeatureCacheTrainTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path store;
  static Path shards;
  static byte[] mapped;

  @BeforeAll
  static void fixtures() throws Exception {
    spark = SparkTestSession.start("FeatureCacheTrainTest");
    TrainFixtures.Graph g = TrainFixtures.graph(11, 400, 10);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, g);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, g, new int[] {4, 3}, 4, 2, 1);
    mapped = train("mapped");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Trains 3 epochs (with validation) into a fresh model dir; returns its checkpoint. */
  static byte[] train(String name, String... cache) throws Exception {
    return train(store, shards, name, cache);
  }

  static byte[] train(Path store, Path shards, String name, String... cache) throws Exception {
    Path model = tmp.resolve(name);
    String[] more = {"--epochs", "3", "--val-shards", shards.toString(), "--progress", "none"};
    String[] all = java.util.Arrays.copyOf(more, more.length + cache.length);
    System.arraycopy(cache, 0, all, more.length, cache.length);
    Result r = cli(TrainFixtures.trainArgs(store, shards, model, all));
    assertThat(r.code()).as(r.err()).isZero();
    return Files.readAllBytes(model.resolve("checkpoint.bin"));
  }

  @Test
  void everyPolicyTrainsTheModelOfTheMappedStore() throws Exception {
    // 40 rows of 10 floats: a tenth of the features, so rows are evicted and read again; about
    // 33 batches an epoch, so the cache plans several overlapping windows.
    String bytes = Integer.toString(40 * 10 * 4);
    assertThat(train("belady", "--feature-cache", "belady", "--feature-cache-bytes", bytes))
        .isEqualTo(mapped);
    assertThat(train("lru", "--feature-cache", "lru", "--feature-cache-bytes", bytes))
        .isEqualTo(mapped);
    assertThat(train("none", "--feature-cache", "none")).isEqualTo(mapped);
    // other planning windows change which rows stay, never the rows a batch gets
    for (String window : new String[] {"auto", "1", "5"}) {
      assertThat(
              train(
                  "belady-window-" + window,
                  "--feature-cache",
                  "belady",
                  "--feature-cache-bytes",
                  bytes,
                  "--feature-cache-window",
                  window))
          .as("--feature-cache-window %s", window)
          .isEqualTo(mapped);
    }
  }

  /**
   * {@code --feature-access zero-copy} with a cache: the loader resolves each batch to cache slots
   * and the backend decodes the rows from the cache's own pages (pinned host memory on a GPU); the
   * model is the mapped store's, bit for bit, for every policy.
   */
  @Test
  void zeroCopyReadsTheCachesPagesInPlaceAndTrainsTheModelOfTheMappedStore() throws Exception {
    String bytes = Integer.toString(40 * 10 * 4);
    byte[] plain = train("mapped-unnormalized", "--feature-norm", "none"); // rows read as stored
    for (String policy : new String[] {"belady", "lru", "none"}) {
      assertThat(
              train(
                  "zero-copy-" + policy,
                  "--feature-norm",
                  "none",
                  "--feature-access",
                  "zero-copy",
                  "--feature-cache",
                  policy,
                  "--feature-cache-bytes",
                  policy.equals("none") ? "0" : bytes))
          .as(policy)
          .isEqualTo(plain);
    }
    assertThat(
            train(
                "zero-copy-checked",
                "--backend",
                "cpu-checked",
                "--feature-norm",
                "none",
                "--feature-access",
                "zero-copy",
                "--feature-cache",
                "belady",
                "--feature-cache-bytes",
                bytes))
        .isEqualTo(plain);
  }

  @Test
  void directReadsTrainTheModelOfTheMappedStore() throws Exception {
    String bytes = Integer.toString(40 * 10 * 4);
    for (String policy : new String[] {"belady", "none"}) {
      assertThat(
              train(
                  "direct-" + policy,
                  "--feature-cache",
                  policy,
                  "--feature-cache-bytes",
                  policy.equals("none") ? "0" : bytes,
                  "--feature-cache-io",
                  "direct"))
          .as(policy)
          .isEqualTo(mapped);
    }
  }

  /**
   * On an {@code int8} and a {@code pq} store the cache holds encoded rows (so a size of 40 encoded
   * rows holds 40 rows, a quarter and at most a twentieth of the bytes of 40 f32 rows) and decodes
   * them as the memory-mapped store does: the same model, bit for bit.
   */
  @Test
  void quantizedStoresTrainTheModelOfTheirMappedStoreThroughTheCache() throws Exception {
    TrainFixtures.Graph g = TrainFixtures.graph(11, 400, 10);
    for (String enc : new String[] {"int8", "pq"}) {
      Path q = tmp.resolve("store-" + enc);
      Result qr =
          cli("quantize", store.toString(), "--output", q.toString(), "--feature-encoding", enc);
      assertThat(qr.code()).as(qr.err()).isZero();
      Path qs = tmp.resolve("shards-" + enc);
      TrainFixtures.writeShards(qs, q, g, new int[] {4, 3}, 4, 2, 1);
      byte[] want = train(q, qs, "mapped-" + enc);
      int rowBytes;
      try (GraphStore gs = GraphStore.open(q)) {
        rowBytes = gs.featureParams().rowBytes();
      }
      assertThat(rowBytes).isLessThanOrEqualTo(enc.equals("int8") ? 10 : 2);
      String bytes = Integer.toString(40 * rowBytes);
      for (String policy : new String[] {"belady", "lru"}) {
        assertThat(
                train(
                    q,
                    qs,
                    policy + "-" + enc,
                    "--feature-cache",
                    policy,
                    "--feature-cache-bytes",
                    bytes))
            .as("%s on %s", policy, enc)
            .isEqualTo(want);
      }
      if (rowBytes == 1) {
        continue;
      }
      // less than one encoded row is refused, naming the encoded row size
      refused(
          cli(
              TrainFixtures.trainArgs(
                  q,
                  qs,
                  tmp.resolve("small-" + enc),
                  "--feature-cache",
                  "lru",
                  "--feature-cache-bytes",
                  Integer.toString(rowBytes - 1),
                  "--epochs",
                  "1")),
          "(" + rowBytes + " bytes as the store encodes it, " + enc + ")");
    }
  }

  @Test
  void badCacheOptionsExit2WithOneLine() {
    refused(
        cli(
            TrainFixtures.trainArgs(
                store, shards, tmp.resolve("m1"), "--feature-cache", "fifo", "--epochs", "1")),
        "belady, lru, none");
    refused(
        cli(
            TrainFixtures.trainArgs(
                store, shards, tmp.resolve("m2"), "--feature-cache", "belady", "--epochs", "1")),
        "feature-cache-bytes");
    refused(
        cli(
            TrainFixtures.trainArgs(
                store,
                shards,
                tmp.resolve("m3"),
                "--feature-cache-bytes",
                "1000",
                "--epochs",
                "1")),
        "--feature-cache belady|lru|none");
    refused(
        cli(
            TrainFixtures.trainArgs(
                store, shards, tmp.resolve("m4"), "--feature-cache-io", "direct", "--epochs", "1")),
        "'feature-cache-io' of train is direct but no --feature-cache policy is given");
    refused(
        cli(
            TrainFixtures.trainArgs(
                store,
                shards,
                tmp.resolve("m5"),
                "--feature-cache",
                "none",
                "--feature-cache-io",
                "mmap",
                "--epochs",
                "1")),
        "feature-cache-io");
    for (String bad : new String[] {"0", "4097", "many"}) {
      refused(
          cli(
              TrainFixtures.trainArgs(
                  store,
                  shards,
                  tmp.resolve("m6"),
                  "--feature-cache",
                  "belady",
                  "--feature-cache-bytes",
                  "1000",
                  "--feature-cache-window",
                  bad,
                  "--epochs",
                  "1")),
          "option 'feature-cache-window' of train has value " + bad);
    }
    refused(
        cli(
            TrainFixtures.trainArgs(
                store,
                shards,
                tmp.resolve("m7"),
                "--feature-cache",
                "lru",
                "--feature-cache-bytes",
                "1000",
                "--feature-cache-window",
                "auto",
                "--epochs",
                "1")),
        "only --feature-cache belady plans a window, not lru");
    refused(
        cli(
            TrainFixtures.trainArgs(
                store, shards, tmp.resolve("m8"), "--feature-cache-window", "64", "--epochs", "1")),
        "and no --feature-cache is given");
  }

  private static void refused(Result r, String says) {
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).startsWith("fanout train: error: ").contains(says).doesNotContain("\tat ");
    assertThat(r.err().strip().lines()).hasSize(1);
  }
}
