package io.fanout.jobs.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun;
import io.fanout.graph.GraphStore;
import io.fanout.sample.BatchChecks;
import io.fanout.sample.MiniBatch;
import io.fanout.shard.BatchCodec;
import io.fanout.shard.EncodedBatch;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardFileReader;
import io.fanout.shard.ShardManifest;
import io.fanout.spark.Fanout;
import io.fanout.spark.internal.Hooks;
import io.fanout.store.StoreLayout;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code sample} end to end on cora (3 store partitions): both modes and any thread count give
 * byte-identical shards; shards read back through Spark's own Parquet reader pass the sampler
 * checks and cover every seed once per epoch; a task that dies mid-write is retried to the same
 * bytes; reruns skip or need --overwrite; a store without an edge split refuses {@code --task
 * link}.
 */
class SampleJobTest {
  static SparkSession spark;
  @TempDir static Path tmp;
  static Path cora;

  @BeforeAll
  static void start() {
    // local[2,2]: two attempts per task, for the retry test; every other test passes or fails
    // alike on one attempt or two
    spark = SparkTestSession.start("SampleJobTest", Map.of("spark.master", "local[2,2]"));
    cora = SampleFixtures.prepare(spark, "cora", 3, tmp.resolve("cora.store"));
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void modesAndThreadCountsGiveIdenticalShards() throws Exception {
    String[] opts = {
      "--split",
      "all",
      "--batch-size",
      "128",
      "--fanouts",
      "10,5",
      "--epochs",
      "2",
      "--batches-per-shard",
      "4",
      "--seed",
      "7"
    };
    Path a = tmp.resolve("ids-replicated-1");
    Path b = tmp.resolve("ids-replicated-3");
    Path c = tmp.resolve("ids-partitioned");
    SampleFixtures.sampleOk(cora, a, concat(opts, "--threads", "1"));
    SampleFixtures.sampleOk(cora, b, concat(opts, "--threads", "3"));
    SampleFixtures.sampleOk(cora, c, concat(opts, "--mode", "partitioned"));
    // 2708 vertices / 128 = 22 batches = 6 parts per epoch, 2 epochs.
    assertThat(SameShards.assertByteIdentical(a, b, c)).hasSize(12);
    ShardManifest m = ShardManifest.read(a);
    assertThat(m.batchesPerEpoch).isEqualTo(22);
    assertThat(m.files).hasSize(12);
    for (ShardManifest.Part p : m.files) {
      assertThat(p.crc32c)
          .isEqualTo(
              io.fanout.store.Checksums.crc32c(
                  io.fanout.shard.ShardManifest.read(a).dataRoot(a).resolve(p.path)));
      assertThat(p.bytes)
          .isEqualTo(Files.size(io.fanout.shard.ShardManifest.read(a).dataRoot(a).resolve(p.path)));
    }
    checkWithSparkReader(a, m, new int[] {10, 5}, StoreLayout.SPLIT_NONE, true);
  }

  @Test
  void inlineFeaturesAreIdenticalAcrossModesAndMatchTheStore() throws Exception {
    String[] opts = {
      "--split",
      "train",
      "--batch-size",
      "32",
      "--fanouts",
      "4,-1",
      "--features",
      "f16",
      "--batches-per-shard",
      "2",
      "--seed",
      "3"
    };
    Path a = tmp.resolve("f16-replicated");
    Path c = tmp.resolve("f16-partitioned");
    SampleFixtures.sampleOk(cora, a, opts);
    SampleFixtures.sampleOk(cora, c, concat(opts, "--mode", "partitioned", "--threads", "2"));
    SameShards.assertByteIdentical(a, c);
    ShardManifest m = ShardManifest.read(a);
    assertThat(m.featureDim).isEqualTo(1433);
    assertThat(m.seedsPerEpoch).isEqualTo(140);
    checkWithSparkReader(a, m, new int[] {4, -1}, StoreLayout.SPLIT_TRAIN, false);
    // Features of every node equal the store's rows rounded to f16.
    try (GraphStore g = GraphStore.open(cora)) {
      List<Row> rows =
          spark
              .read()
              .parquet(
                  io.fanout.shard.ShardManifest.read(a)
                      .dataRoot(a)
                      .resolve("epoch-0000")
                      .toString())
              .collectAsList();
      for (Row r : rows) {
        EncodedBatch e = encoded(r);
        MiniBatch b = BatchCodec.decode(e);
        float[] got = BatchCodec.decodeFeatures(e, FeatureEncoding.F16);
        float[] want = new float[b.nodes().length * 1433];
        g.features().gather(b.nodes(), 0, b.nodes().length, want, 0);
        float[] rounded =
            BatchCodec.decodeFeatures(
                new EncodedBatch(
                    0,
                    0,
                    0,
                    null,
                    null,
                    null,
                    null,
                    null,
                    BatchCodec.encodeFeatures(b.nodes().length, want, FeatureEncoding.F16)),
                FeatureEncoding.F16);
        assertThat(got).isEqualTo(rounded);
        for (int i = 0; i < want.length; i += 997) {
          assertThat(got[i]).isCloseTo(want[i], org.assertj.core.data.Offset.offset(1e-2f));
        }
      }
    }
  }

  /**
   * A task that dies after writing half its part file is retried and the shards come out
   * byte-identical to a run without failures, in both modes.
   */
  @Tag("slow")
  @Test
  void aFailedAttemptIsRetriedToTheSameBytes() throws Exception {
    String[] opts = {
      "--split", "all", "--batch-size", "200", "--fanouts", "5,5", "--batches-per-shard", "2"
    };
    Path clean = tmp.resolve("retry-clean");
    SampleFixtures.sampleOk(cora, clean, opts);
    for (String mode : new String[] {"replicated", "partitioned"}) {
      Path out = tmp.resolve("retried-" + mode);
      spark.conf().set(Hooks.PART_WRITE_OBSERVER, FailFirstAttempt.class.getName());
      int injected = FailFirstAttempt.INJECTED.get();
      try {
        SampleFixtures.sampleOk(cora, out, concat(opts, "--mode", mode));
      } finally {
        spark.conf().unset(Hooks.PART_WRITE_OBSERVER);
      }
      assertThat(FailFirstAttempt.INJECTED.get()).as(mode).isEqualTo(injected + 1);
      Map<String, byte[]> want = SameShards.assertByteIdentical(clean, out);
      assertThat(ShardManifest.read(out).files).hasSize(want.size());
      try (var s = Files.list(out)) {
        assertThat(s.map(p -> p.getFileName().toString()).toList())
            .containsExactlyInAnyOrder("manifest.json", "_publish.lock", "v-0001");
      }
    }
  }

  @Test
  void rerunSkipsAndOtherOptionsNeedOverwrite() throws Exception {
    Path out = tmp.resolve("rerun");
    String[] opts = {"--batch-size", "64", "--fanouts", "3,3", "--seed", "1"};
    CliRun.Result first = SampleFixtures.sampleOk(cora, out, opts);
    assertThat(first.out()).contains("\"skipped\":false");
    Map<String, byte[]> before = SampleFixtures.files(out);
    CliRun.Result again = SampleFixtures.sampleOk(cora, out, opts);
    assertThat(again.out()).contains("\"skipped\":true");
    assertThat(SampleFixtures.files(out).keySet()).isEqualTo(before.keySet());
    CliRun.Result other = SampleFixtures.sample(cora, out, "--batch-size", "64", "--seed", "2");
    assertThat(other.code()).isEqualTo(2);
    assertThat(other.err()).contains("--overwrite");
    assertThat(SampleFixtures.files(out).keySet()).isEqualTo(before.keySet());
    SampleFixtures.sampleOk(cora, out, "--batch-size", "100", "--seed", "2", "--overwrite");
    ShardManifest m = ShardManifest.read(out);
    assertThat(m.seed).isEqualTo(2);
    assertThat(m.batchSize).isEqualTo(100);
    try (var s = Files.list(out)) {
      assertThat(s.map(p -> p.getFileName().toString()).toList())
          .containsExactlyInAnyOrder("manifest.json", "_publish.lock", "v-0002");
    }
  }

  @Tag("slow")
  @Test
  void smallGraphWithEmptyPartitionsAndMultiEdges() throws Exception {
    // 40 vertices hashed into 7 partitions, duplicate edges and self-loops kept.
    List<Row> vs = new ArrayList<>();
    for (long v = 0; v < 40; v++) {
      vs.add(RowFactory.create(v * 1000 + 7, (int) (v % 3), "train"));
    }
    List<Row> es = new ArrayList<>();
    java.util.SplittableRandom r = new java.util.SplittableRandom(5);
    for (int e = 0; e < 300; e++) {
      es.add(RowFactory.create(r.nextLong(40) * 1000 + 7, r.nextLong(8) * 1000 + 7));
    }
    StructType vt =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("label", DataTypes.IntegerType)
            .add("split", DataTypes.StringType);
    StructType et = new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType);
    Path store = tmp.resolve("small.store");
    Fanout.get(spark)
        .prepare(spark.createDataFrame(vs, vt), spark.createDataFrame(es, et))
        .option("partitions", "7")
        .output(store.toString())
        .execute();
    String[] opts = {
      "--batch-size", "6", "--fanouts", "3,2,-1", "--epochs", "2", "--batches-per-shard", "3"
    };
    Path a = tmp.resolve("small-replicated");
    Path c = tmp.resolve("small-partitioned");
    SampleFixtures.sampleOk(store, a, concat(opts, "--threads", "2"));
    SampleFixtures.sampleOk(store, c, concat(opts, "--mode", "partitioned"));
    Map<String, byte[]> fa = SameShards.assertByteIdentical(a, c);
    assertThat(fa).hasSize(6);
    try (GraphStore g = GraphStore.open(store)) {
      for (String k : fa.keySet()) {
        try (ShardFileReader rd = new ShardFileReader(a.resolve(k))) {
          while (rd.hasNext()) {
            BatchChecks.verify(BatchCodec.decode(rd.next()), g.csr(), new int[] {3, 2, -1});
          }
        }
      }
    }
    // The store has no val vertices: a clear error, nothing published.
    Path none = tmp.resolve("small-val");
    CliRun.Result bad = SampleFixtures.sample(store, none, "--split", "val");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("split 'val' has no vertices");
    assertThat(none).doesNotExist();
  }

  @Tag("slow")
  @Test
  void weightedSamplingIsIdenticalAcrossModesAndThreadsAndSkipsZeroWeights() throws Exception {
    // 60 vertices hashed into 7 partitions, duplicate edges kept, a quarter of the weights zero.
    List<Row> vs = new ArrayList<>();
    for (long v = 0; v < 60; v++) {
      vs.add(RowFactory.create(v * 1000 + 3, (int) (v % 3), "train"));
    }
    List<Row> es = new ArrayList<>();
    java.util.SplittableRandom r = new java.util.SplittableRandom(12);
    for (int e = 0; e < 900; e++) {
      double w = r.nextInt(4) == 0 ? 0.0 : r.nextDouble(0.1, 20);
      es.add(RowFactory.create(r.nextLong(60) * 1000 + 3, r.nextLong(12) * 1000 + 3, w));
    }
    StructType vt =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("label", DataTypes.IntegerType)
            .add("split", DataTypes.StringType);
    StructType et =
        new StructType()
            .add("src", DataTypes.LongType)
            .add("dst", DataTypes.LongType)
            .add("weight", DataTypes.DoubleType);
    Path store = tmp.resolve("weighted.store");
    Fanout.get(spark)
        .prepare(spark.createDataFrame(vs, vt), spark.createDataFrame(es, et))
        .option("partitions", "7")
        .option("weight-column", "weight")
        .output(store.toString())
        .execute();
    int[] fanouts = {4, 3, -1};
    String[] opts = {
      "--weighted",
      "true",
      "--batch-size",
      "7",
      "--fanouts",
      "4,3,-1",
      "--epochs",
      "2",
      "--batches-per-shard",
      "3"
    };
    Path a = tmp.resolve("weighted-replicated-1");
    Path b = tmp.resolve("weighted-replicated-3");
    Path c = tmp.resolve("weighted-partitioned");
    Path u = tmp.resolve("weighted-store-uniform");
    SampleFixtures.sampleOk(store, a, concat(opts, "--threads", "1"));
    SampleFixtures.sampleOk(store, b, concat(opts, "--threads", "3"));
    SampleFixtures.sampleOk(store, c, concat(opts, "--mode", "partitioned"));
    SampleFixtures.sampleOk(store, u, java.util.Arrays.copyOfRange(opts, 2, opts.length));
    assertThat(ShardManifest.read(a).options).containsEntry("weighted", "true");
    assertThat(ShardManifest.read(u).options).doesNotContainKey("weighted");
    Map<String, byte[]> fa = SameShards.assertByteIdentical(a, b, c);
    assertThat(fa).hasSize(6);
    Map<String, byte[]> fu = SampleFixtures.files(u);
    boolean differsFromUniform = false;
    for (String k : fa.keySet()) {
      differsFromUniform |= !java.util.Arrays.equals(fu.get(k), fa.get(k));
    }
    assertThat(differsFromUniform).isTrue();
    try (GraphStore g = GraphStore.open(store)) {
      for (String k : fa.keySet()) {
        try (ShardFileReader rd = new ShardFileReader(a.resolve(k))) {
          while (rd.hasNext()) {
            // min(fanout, positive-weight entries) per row, never a zero-weight edge
            BatchChecks.verify(BatchCodec.decode(rd.next()), g.csr(), g.weights(), fanouts);
          }
        }
      }
    }
    // A store prepared without weights: a clear error, nothing published.
    Path none = tmp.resolve("cora-weighted");
    CliRun.Result bad = SampleFixtures.sample(cora, none, "--weighted", "true");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("no edge weights").contains("--weight-column");
    assertThat(none).doesNotExist();
  }

  @Tag("slow")
  @ParameterizedTest
  @ValueSource(strings = {"amazon_photo", "coauthor_cs"})
  void realDatasetsPassTheChecksThroughSparksReader(String dataset) throws Exception {
    Path store = SampleFixtures.prepare(spark, dataset, 2, tmp.resolve(dataset + ".store"));
    Path out = tmp.resolve(dataset + ".shards");
    SampleFixtures.sampleOk(
        store, out, "--split", "val", "--batch-size", "256", "--fanouts", "10,5", "--threads", "2");
    ShardManifest m = ShardManifest.read(out);
    assertThat(m.storeFingerprint).isEqualTo(ShardManifest.storeFingerprint(store));
    checkWithSparkReader(store, out, m, new int[] {10, 5}, StoreLayout.SPLIT_VAL, false);
  }

  @Test
  void badInputIsAClearErrorAndPublishesNothing() throws Exception {
    Path out = tmp.resolve("bad");
    String[][] cases = {
      {"--split", "validation"},
      {"--fanouts", "15,x"},
      {"--fanouts", "15,0,5"},
      {"--fanouts", ""},
      {"--batch-size", "0"},
      {"--epochs", "0"},
      {"--features", "f64"},
      {"--mode", "sharded"},
      {"--bogus", "1"}
    };
    String[] expect = {
      "split", "fanouts", "fanouts", "fanouts", "batch-size", "epochs", "features", "mode", "bogus"
    };
    for (int i = 0; i < cases.length; i++) {
      CliRun.Result r = SampleFixtures.sample(cora, out, cases[i]);
      assertThat(r.code()).as(String.join(" ", cases[i]) + ": " + r.err()).isEqualTo(2);
      assertThat(r.err()).contains(expect[i]);
      assertThat(out).doesNotExist();
    }
    CliRun.Result missing = SampleFixtures.sample(tmp.resolve("no-such.store"), out);
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err()).contains("no-such.store");
    assertThat(out).doesNotExist();

    // A flipped byte in a CSR part: the CRC32C check names the file.
    Path copy = copyStore(cora, tmp.resolve("corrupt.store"));
    Path csr =
        io.fanout.store.StoreManifest.read(copy).dataRoot(copy).resolve("csr/part-00001.csr");
    byte[] bytes = Files.readAllBytes(csr);
    bytes[bytes.length / 2] ^= 0x10;
    Files.write(csr, bytes);
    CliRun.Result corrupt = SampleFixtures.sample(copy, out);
    assertThat(corrupt.code()).as(corrupt.err()).isEqualTo(2);
    assertThat(corrupt.err()).contains("part-00001.csr").contains("CRC32C");
    assertThat(out).doesNotExist();
    // A truncated part: refused when the store is opened.
    Files.write(csr, java.util.Arrays.copyOf(bytes, bytes.length - 8));
    CliRun.Result truncated = SampleFixtures.sample(copy, out, "--verify-store", "false");
    assertThat(truncated.code()).as(truncated.err()).isEqualTo(2);
    assertThat(truncated.err()).contains("part-00001.csr");
    assertThat(out).doesNotExist();
    // No manifest: an incomplete store.
    Files.delete(copy.resolve("manifest.json"));
    CliRun.Result incomplete = SampleFixtures.sample(copy, out);
    assertThat(incomplete.code()).isEqualTo(2);
    assertThat(incomplete.err()).contains("manifest.json");
    assertThat(out).doesNotExist();
  }

  @Test
  void linkSamplingNeedsAnEdgeSplit() {
    Path out = tmp.resolve("link-without-split");
    CliRun.Result noSplit = SampleFixtures.sample(cora, out, "--task", "link");
    assertThat(noSplit.code()).isEqualTo(2);
    assertThat(noSplit.err().strip())
        .isEqualTo(
            "fanout sample: error: "
                + cora
                + ": the store has no edge split, needed for sample --task link; rerun prepare"
                + " with --task link (or --edge-split TRAIN,VAL,TEST)");
    assertThat(out).doesNotExist();
  }

  @Test
  void verifyFalseOrTheOldVerifyStoreFalseSkipsTheStoreCheck() throws Exception {
    Path copy = copyStore(cora, tmp.resolve("flipped-feature.store"));
    Path feat =
        io.fanout.store.StoreManifest.read(copy)
            .dataRoot(copy)
            .resolve(StoreLayout.featuresFile(0));
    byte[] bytes = Files.readAllBytes(feat);
    bytes[StoreLayout.HEADER_BYTES] ^= 1;
    Files.write(feat, bytes);
    String[] opts = {"--batch-size", "512", "--fanouts", "3"};
    CliRun.Result refused = SampleFixtures.sample(copy, tmp.resolve("flipped-0"), opts);
    assertThat(refused.code()).as(refused.err()).isEqualTo(2);
    assertThat(refused.err())
        .contains(feat + ": CRC32C")
        .contains("rerun prepare with --overwrite");
    SampleFixtures.sampleOk(copy, tmp.resolve("flipped-1"), concat(opts, "--verify", "false"));
    SampleFixtures.sampleOk(
        copy, tmp.resolve("flipped-2"), concat(opts, "--verify-store", "false"));
  }

  private static Path copyStore(Path from, Path to) throws Exception {
    try (var s = Files.walk(from)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t);
        }
      }
    }
    return to;
  }

  /** Reads shards through Spark's Parquet reader and checks every batch and the seed coverage. */
  private void checkWithSparkReader(
      Path dir, ShardManifest m, int[] fanouts, byte split, boolean all) throws Exception {
    checkWithSparkReader(cora, dir, m, fanouts, split, all);
  }

  private void checkWithSparkReader(
      Path store, Path dir, ShardManifest m, int[] fanouts, byte split, boolean all)
      throws Exception {
    try (GraphStore g = GraphStore.open(store)) {
      for (int epoch = 0; epoch < m.epochs; epoch++) {
        Path ed = m.dataRoot(dir).resolve(String.format("epoch-%04d", epoch));
        List<Row> rows = spark.read().parquet(ed.toString()).collectAsList();
        assertThat(rows).hasSize(m.batchesPerEpoch);
        Set<Integer> seeds = new HashSet<>();
        Set<Integer> batches = new HashSet<>();
        for (Row r : rows) {
          MiniBatch b = BatchCodec.decode(encoded(r));
          assertThat(b.epoch()).isEqualTo(epoch);
          assertThat(batches.add(b.batch())).isTrue();
          BatchChecks.verify(b, g.csr(), fanouts);
          for (int i = 0; i < b.numSeeds(); i++) {
            int v = b.nodes()[i];
            assertThat(seeds.add(v)).as("seed %d twice in epoch %d", v, epoch).isTrue();
            assertThat(b.labels()[i]).isEqualTo(g.vertices().label(v));
            if (!all) {
              assertThat(g.vertices().split(v)).isEqualTo(split);
            }
          }
        }
        assertThat((long) seeds.size()).isEqualTo(m.seedsPerEpoch);
      }
    }
  }

  static EncodedBatch encoded(Row r) {
    int f = r.fieldIndex("features");
    return new EncodedBatch(
        r.getInt(r.fieldIndex("epoch")),
        r.getInt(r.fieldIndex("batch")),
        r.getInt(r.fieldIndex("num_seeds")),
        (byte[]) r.get(r.fieldIndex("layer_sizes")),
        (byte[]) r.get(r.fieldIndex("nodes")),
        (byte[]) r.get(r.fieldIndex("indptr")),
        (byte[]) r.get(r.fieldIndex("indices")),
        (byte[]) r.get(r.fieldIndex("labels")),
        r.isNullAt(f) ? null : (byte[]) r.get(f));
  }

  static String[] concat(String[] a, String... b) {
    List<String> l = new ArrayList<>(List.of(a));
    l.addAll(List.of(b));
    return l.toArray(new String[0]);
  }
}
