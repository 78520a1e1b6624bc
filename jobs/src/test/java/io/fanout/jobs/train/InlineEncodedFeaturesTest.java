package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun.Result;
import io.fanout.graph.GraphStore;
import io.fanout.sample.MiniBatch;
import io.fanout.shard.BatchCodec;
import io.fanout.shard.EncodedBatch;
import io.fanout.shard.ShardFileReader;
import io.fanout.shard.ShardManifest;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sample --features int8|pq} on a store of that encoding: the shards carry the store's
 * encoded rows undecoded (and the CRC32C of its parameters), byte-identical whatever the threads
 * and the sampling mode, and {@code train} decodes them with the store's parameters into the model
 * it trains from node-id shards reading the store.
 */
class InlineEncodedFeaturesTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path f32;

  @BeforeAll
  static void fixtures() throws Exception {
    spark = SparkTestSession.start("InlineEncodedFeaturesTest");
    f32 = tmp.resolve("store");
    TrainFixtures.writeStore(f32, TrainFixtures.graph(5, 300, 12));
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static final String[] SAMPLE = {
    "--split",
    "all",
    "--batch-size",
    "16",
    "--fanouts",
    "3,2",
    "--epochs",
    "2",
    "--batches-per-shard",
    "4",
    "--progress",
    "none"
  };

  private static Path sample(Path store, String name, String... more) {
    Path out = tmp.resolve(name);
    String[] head = {"sample", "--graph", store.toString(), "--output", out.toString()};
    String[] all = concat(concat(head, SAMPLE), more);
    Result r = cli(all);
    assertThat(r.code()).as(r.err()).isZero();
    return out;
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** Every part file's bytes, by path relative to the shards' data folder. */
  private static Map<String, byte[]> parts(Path shards) throws Exception {
    Path data = ShardManifest.read(shards).dataRoot(shards);
    Map<String, byte[]> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(data)) {
      for (Path p : (Iterable<Path>) s.filter(p -> p.toString().endsWith(".parquet"))::iterator) {
        out.put(data.relativize(p).toString(), Files.readAllBytes(p));
      }
    }
    return out;
  }

  /** Trains 2 epochs; the checkpoint (whose identity names the shards, so differs in that). */
  private static Checkpoint train(Path store, Path shards, String name) throws Exception {
    Path model = tmp.resolve(name);
    Result r =
        cli(TrainFixtures.trainArgs(store, shards, model, "--epochs", "2", "--progress", "none"));
    assertThat(r.code()).as(r.err()).isZero();
    return Checkpoint.read(model);
  }

  @Test
  void encodedRowsAreInlinedIdenticallyAndTrainTheModelOfTheStore() throws Exception {
    for (String enc : new String[] {"int8", "pq"}) {
      Path q = tmp.resolve("store-" + enc);
      Result qr =
          cli("quantize", f32.toString(), "--output", q.toString(), "--feature-encoding", enc);
      assertThat(qr.code()).as(qr.err()).isZero();

      Path one = sample(q, enc + "-t1", "--features", enc, "--threads", "1");
      Path three = sample(q, enc + "-t3", "--features", enc, "--threads", "3");
      Path part = sample(q, enc + "-part", "--features", enc, "--mode", "partitioned");
      Map<String, byte[]> a = parts(one);
      assertThat(a).isNotEmpty();
      for (Path other : new Path[] {three, part}) {
        Map<String, byte[]> b = parts(other);
        assertThat(b.keySet()).isEqualTo(a.keySet());
        for (String k : a.keySet()) {
          assertThat(b.get(k)).as("%s %s", other.getFileName(), k).isEqualTo(a.get(k));
        }
      }

      ShardManifest m = ShardManifest.read(one);
      StoreManifest sm = StoreManifest.read(q);
      assertThat(m.features).isEqualTo(enc);
      assertThat(m.featureParamsCrc32c)
          .isNotNull()
          .isEqualTo(sm.file(StoreLayout.FEATURE_PARAMS).crc32c);
      // every batch inlines exactly the store's encoded rows of its nodes
      try (GraphStore g = GraphStore.open(q)) {
        int rowBytes = g.featureParams().rowBytes();
        assertThat(rowBytes).isLessThan(12 * 4 / 3);
        long batches = 0;
        for (String k : a.keySet()) {
          try (ShardFileReader r = new ShardFileReader(m.dataRoot(one).resolve(k))) {
            while (r.hasNext()) {
              EncodedBatch e = r.next();
              MiniBatch b = BatchCodec.decode(e);
              byte[] want = new byte[b.nodes().length * rowBytes];
              g.features().gatherEncoded(b.nodes(), 0, b.nodes().length, want, 0);
              assertThat(e.features()).isEqualTo(want);
              batches++;
            }
          }
        }
        assertThat(batches).isEqualTo(2L * m.batchesPerEpoch);
      }

      // trained from the inline rows or from node-id shards reading the store: the same model
      Path ids = sample(q, enc + "-ids", "--threads", "2");
      Checkpoint inline = train(q, one, enc + "-inline");
      Checkpoint mapped = train(q, ids, enc + "-mapped");
      assertThat(inline.step()).isPositive().isEqualTo(mapped.step());
      assertThat(inline.params()).containsExactly(mapped.params());
      assertThat(inline.firstMoment()).containsExactly(mapped.firstMoment());
      assertThat(inline.secondMoment()).containsExactly(mapped.secondMoment());
    }
  }

  @Test
  void mismatchedEncodingsAreRefusedWithOneLine() throws Exception {
    Path q = tmp.resolve("store-int8-refusals");
    Result qr =
        cli("quantize", f32.toString(), "--output", q.toString(), "--feature-encoding", "int8");
    assertThat(qr.code()).as(qr.err()).isZero();
    String[] head = {"sample", "--graph", "", "--output", tmp.resolve("refused").toString()};
    // int8 rows from an f32 store, f16 rows from an int8 store, pq rows from an int8 store
    String[][] cases = {
      {f32.toString(), "int8", "quantize the store to int8 first"},
      {q.toString(), "f16", "use --features int8"},
      {q.toString(), "pq", "keeps int8 features"}
    };
    for (String[] c : cases) {
      head[2] = c[0];
      Result r = cli(concat(concat(head, SAMPLE), "--features", c[1]));
      assertThat(r.code()).as(r.err()).isEqualTo(2);
      assertThat(r.err()).contains(c[2]).doesNotContain("\tat ");
      assertThat(r.err().strip().lines()).hasSize(1);
    }
  }
}
