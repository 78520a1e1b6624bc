package io.fanout.jobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.shard.ShardManifest;
import io.fanout.shard.TypedBatchCodec;
import io.fanout.shard.TypedShardFileReader;
import io.fanout.shard.TypedShardSet;
import io.fanout.spark.Fanout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.spark.sql.Dataset;
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

/**
 * {@code sample --mode partitioned} on a typed store written by {@code prepare} (three types, four
 * relations and their reverses, three store partitions per type, skewed degrees): its part files
 * are byte-identical to {@code --mode replicated}'s at any thread count, with fanouts per relation
 * that take all in-neighbors (-1) or none (0) at a hop, for a single-label seed type over a split
 * and for a multi-label seed type over all its vertices, and for link batches of the store's link
 * relation {@code writes} (author to paper) with negatives drawn by degree and of its held-out val
 * pairs with the negatives {@code prepare} stored, and with {@code --weighted} (relations {@code
 * cites} and {@code writes} and their reverses weighted, the others not), with {@code
 * --batch-by-partition} (at most partitions - 1 batches of an epoch mix two partitions) and with
 * inline f16 features of link batches. Plain sampling of the store (not tagged slow) checks every
 * sampled edge against the store's relations and the seeds against the train split.
 */
class TypedPartitionedSampleTest {
  static SparkSession spark;
  @TempDir static Path tmp;
  static Path store;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedPartitionedSampleTest");
    SplittableRandom r = new SplittableRandom(29);
    StructType paper =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("features", DataTypes.createArrayType(DataTypes.FloatType))
            .add("label", DataTypes.IntegerType)
            .add("split", DataTypes.StringType);
    StructType author =
        new StructType()
            .add("id", DataTypes.StringType)
            .add("labels", DataTypes.createArrayType(DataTypes.IntegerType));
    StructType term = new StructType().add("id", DataTypes.IntegerType);
    List<Row> papers = new ArrayList<>();
    for (long i = 0; i < 150; i++) {
      papers.add(
          RowFactory.create(
              500 + i,
              new Float[] {(float) r.nextDouble(), (float) r.nextDouble()},
              r.nextInt(4),
              i % 3 == 0 ? "train" : i % 3 == 1 ? "val" : "test"));
    }
    List<Row> authors = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      Integer[] set = i % 4 == 0 ? new Integer[0] : new Integer[] {i % 3, 3 + i % 2};
      authors.add(RowFactory.create("a" + i, set));
    }
    List<Row> terms = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      terms.add(RowFactory.create(i));
    }
    store = tmp.resolve("typed.store");
    Fanout.get(spark)
        .prepare()
        .vertices("paper", df(papers, paper))
        .vertices("author", df(authors, author))
        .vertices("term", df(terms, term))
        .edges("cites", "paper", "paper", edges(r, 900, 150, 500L, 150, 500L))
        .edges("writes", "author", "paper", edges(r, 350, 60, "a", 150, 500L))
        .edges("has_term", "term", "paper", edges(r, 300, 25, 0, 150, 500L))
        .edges("coauthor", "author", "author", edges(r, 120, 60, "a", 60, "a"))
        .weightColumn("cites", "w")
        .weightColumn("writes", "w")
        .option("labels-column", "labels")
        .option("add-reverse", "true")
        .option("dedupe", "true")
        .option("partitions", "3")
        .option("link-relation", "writes")
        .option("edge-split", "0.8,0.1,0.1")
        .output(store.toString())
        .execute();
  }

  /**
   * {@code m} edges whose destinations are skewed towards low ids (a few high in-degrees), with a
   * weight column {@code w} (one in eight zero, the others from 0.25 to 10).
   */
  private static Dataset<Row> edges(
      SplittableRandom r, int m, int ns, Object srcBase, int nd, Object dstBase) {
    List<Row> rows = new ArrayList<>();
    for (int e = 0; e < m; e++) {
      int d = (int) (nd * Math.pow(r.nextDouble(), 2));
      double w = r.nextInt(8) == 0 ? 0 : r.nextInt(1, 41) * 0.25;
      rows.add(RowFactory.create(id(srcBase, r.nextInt(ns)), id(dstBase, d), w));
    }
    StructType s =
        new StructType()
            .add("src", type(srcBase))
            .add("dst", type(dstBase))
            .add("w", DataTypes.DoubleType);
    return spark.createDataFrame(rows, s);
  }

  private static Object id(Object base, int i) {
    if (base instanceof String p) {
      return p + i;
    }
    return base instanceof Long l ? (Object) (l + i) : (Object) ((Integer) base + i);
  }

  private static org.apache.spark.sql.types.DataType type(Object base) {
    return base instanceof String
        ? DataTypes.StringType
        : base instanceof Long ? DataTypes.LongType : DataTypes.IntegerType;
  }

  private static Dataset<Row> df(List<Row> rows, StructType schema) {
    return spark.createDataFrame(rows, schema);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static Map<String, byte[]> sample(Path out, String... options) throws Exception {
    return sampleOf(store, out, options);
  }

  private static Map<String, byte[]> sampleOf(Path graph, Path out, String... options)
      throws Exception {
    run(graph, out, options);
    Map<String, byte[]> files = SampleFixtures.files(out);
    files.remove(ShardManifest.FILE); // names its output and mode
    return files;
  }

  private static io.fanout.spark.SampleResult run(Path graph, Path out, String... options) {
    var action = Fanout.get(spark).sample(graph.toString()).output(out.toString());
    for (int i = 0; i < options.length; i += 2) {
      action.option(options[i], options[i + 1]);
    }
    return action.execute();
  }

  private static void assertSameBatches(
      java.util.Iterator<TypedMiniBatch> got, java.util.Iterator<TypedMiniBatch> want) {
    int n = 0;
    while (want.hasNext()) {
      assertThat(got.hasNext()).isTrue();
      TypedMiniBatch a = got.next();
      TypedMiniBatch b = want.next();
      assertThat(a.layerSizes()).isDeepEqualTo(b.layerSizes());
      for (int t = 0; t < b.numTypes(); t++) {
        assertThat(a.nodes(t)).as("batch %s type %s", n, t).isEqualTo(b.nodes(t));
      }
      assertThat(a.pairs().src()).isEqualTo(b.pairs().src());
      assertThat(a.pairs().dst()).isEqualTo(b.pairs().dst());
      assertThat(a.pairs().label()).isEqualTo(b.pairs().label());
      n++;
    }
    assertThat(got.hasNext()).isFalse();
    assertThat(n).isPositive();
  }

  private static void assertIdentical(Map<String, byte[]> got, Map<String, byte[]> want) {
    assertThat(got.keySet()).isEqualTo(want.keySet()).isNotEmpty();
    for (String k : want.keySet()) {
      assertThat(got.get(k)).as(k).isEqualTo(want.get(k));
    }
  }

  @Tag("slow")
  @Test
  void partitionedShardsAreByteIdenticalToReplicated() throws Exception {
    String[] paperOpts = {
      "seed-type", "paper",
      "split", "train",
      "fanouts", "cites=4,2,1;writes=-1,2,0;has_term=0,3,2;*=2,1,-1",
      "batch-size", "7",
      "epochs", "2",
      "batches-per-shard", "3",
      "seed", "19"
    };
    Map<String, byte[]> replicated =
        sample(tmp.resolve("p-rep"), concat(paperOpts, "threads", "1"));
    Map<String, byte[]> replicated3 =
        sample(tmp.resolve("p-rep3"), concat(paperOpts, "threads", "3"));
    Map<String, byte[]> partitioned =
        sample(tmp.resolve("p-part"), concat(paperOpts, "mode", "partitioned"));
    assertIdentical(replicated3, replicated);
    assertIdentical(partitioned, replicated);
    assertThat(replicated.keySet()).hasSize(2 * 3); // 50 train papers / 7 = 8 batches: 3 parts
    ShardManifest m = ShardManifest.readTyped(tmp.resolve("p-part"));
    assertThat(m.mode).isEqualTo("partitioned");
    assertThat(ShardManifest.readTyped(tmp.resolve("p-rep")).mode).isEqualTo("replicated");

    String[] authorOpts = {
      "seed-type", "author",
      "split", "all",
      "fanouts", "coauthor=3,-1;writes=0,2;*=2,1",
      "batch-size", "16",
      "epochs", "1",
      "batches-per-shard", "2",
      "seed", "3"
    };
    assertIdentical(
        sample(tmp.resolve("a-part"), concat(authorOpts, "mode", "partitioned")),
        sample(tmp.resolve("a-rep"), concat(authorOpts, "threads", "2")));
    assertThat(ShardManifest.readTyped(tmp.resolve("a-part")).typed.seedType).isEqualTo("author");
  }

  @Tag("slow")
  @Test
  void partitionedLinkShardsAreByteIdenticalToReplicated() throws Exception {
    String[] opts = {
      "task", "link",
      "fanouts", "writes=3,-1;rev_writes=2,1;*=2,1",
      "negatives", "degree",
      "num-negatives", "2",
      "batch-size", "16",
      "epochs", "2",
      "batches-per-shard", "2",
      "seed", "7"
    };
    Map<String, byte[]> replicated = sample(tmp.resolve("l-rep"), concat(opts, "threads", "1"));
    Map<String, byte[]> replicated3 = sample(tmp.resolve("l-rep3"), concat(opts, "threads", "3"));
    Map<String, byte[]> partitioned =
        sample(tmp.resolve("l-part"), concat(opts, "mode", "partitioned"));
    assertIdentical(replicated3, replicated);
    assertIdentical(partitioned, replicated);
    ShardManifest m = ShardManifest.readTyped(tmp.resolve("l-part"));
    assertThat(m.mode).isEqualTo("partitioned");
    assertThat(m.typed.linkRelation).isEqualTo("writes");
    assertThat(m.typed.linkReverses).containsExactly("rev_writes");
    assertThat(m.batchesPerEpoch).isGreaterThan(2 * m.batchesPerShard); // several parts an epoch

    // the held-out val pairs, with the negatives prepare stored (--edge-split-negatives 1)
    String[] val = {
      "task", "link",
      "split", "val",
      "fanouts", "writes=3,-1;rev_writes=2,1;*=2,1",
      "batch-size", "5",
      "epochs", "2",
      "batches-per-shard", "2",
      "seed", "7"
    };
    Map<String, byte[]> valShards =
        sample(tmp.resolve("lv-part"), concat(val, "mode", "partitioned"));
    assertIdentical(valShards, sample(tmp.resolve("lv-rep"), concat(val, "threads", "3")));
    ShardManifest v = ShardManifest.readTyped(tmp.resolve("lv-part"));
    assertThat(v.split).isEqualTo("val");
    assertThat(v.batchesPerEpoch).isGreaterThan(2 * v.batchesPerShard);
    StoreManifest.EdgeSplit counts = StoreManifest.read(store).edgeSplit;
    assertThat(v.seedsPerEpoch).isEqualTo(counts.valPairs + counts.valNegatives);
    assertThat(v.totals.seeds).isEqualTo(2 * counts.valPairs);

    // a store manifest without the held-out counts: the driver counts the file's rows instead,
    // and the batches are the same (the part files differ only in the store fingerprint they name)
    Path older = tmp.resolve("older.store");
    try (var files = Files.walk(store)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.copy(f, older.resolve(store.relativize(f).toString()));
      }
    }
    Path manifest = older.resolve("manifest.json");
    String json = Files.readString(manifest);
    String without = json.replaceAll("\"(val|test)_(pairs|negatives)\"\\s*:\\s*\\d+\\s*,", "");
    assertThat(without).isNotEqualTo(json).doesNotContain("val_pairs", "val_negatives");
    Files.writeString(manifest, without);
    assertThat(StoreManifest.read(older).edgeSplit.valPairs).isZero();
    for (String mode : new String[] {"replicated", "partitioned"}) {
      Path out = tmp.resolve("lv-older-" + mode);
      run(older, out, concat(val, "mode", mode));
      ShardManifest o = ShardManifest.readTyped(out);
      assertThat(o.seedsPerEpoch).isEqualTo(v.seedsPerEpoch);
      assertThat(o.totals.seeds).isEqualTo(v.totals.seeds);
      for (int epoch = 0; epoch < 2; epoch++) {
        assertSameBatches(
            TypedShardSet.open(out).batches(epoch, true),
            TypedShardSet.open(tmp.resolve("lv-part")).batches(epoch, true));
      }
    }
  }

  @Tag("slow")
  @Test
  void symmetricLinkRelationSeedsEachPairOnceInBothModes() throws Exception {
    // prepare --undirected makes coauthor (author to author) symmetric: each pair is one seed
    SplittableRandom r = new SplittableRandom(31);
    StructType author = new StructType().add("id", DataTypes.StringType);
    List<Row> authors = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      authors.add(RowFactory.create("a" + i));
    }
    StructType paper = new StructType().add("id", DataTypes.LongType);
    List<Row> papers = new ArrayList<>();
    for (long i = 0; i < 40; i++) {
      papers.add(RowFactory.create(500 + i));
    }
    Path sym = tmp.resolve("symmetric.store");
    StoreManifest prepared =
        Fanout.get(spark)
            .prepare()
            .vertices("author", df(authors, author))
            .vertices("paper", df(papers, paper))
            .edges("coauthor", "author", "author", edges(r, 200, 60, "a", 60, "a"))
            .edges("writes", "author", "paper", edges(r, 150, 60, "a", 40, 500L))
            .option("undirected", "true")
            .option("partitions", "3")
            .option("link-relation", "coauthor")
            .option("edge-split", "0.8,0.1,0.1")
            .output(sym.toString())
            .execute()
            .manifest();
    String[] opts = {
      "task", "link",
      "fanouts", "*=2,1",
      "num-negatives", "1",
      "batch-size", "16",
      "batches-per-shard", "2",
      "seed", "3"
    };
    Map<String, byte[]> replicated = sampleOf(sym, tmp.resolve("s-rep"), opts);
    Map<String, byte[]> partitioned =
        sampleOf(sym, tmp.resolve("s-part"), concat(opts, "mode", "partitioned"));
    assertIdentical(partitioned, replicated);
    ShardManifest m = ShardManifest.readTyped(tmp.resolve("s-part"));
    assertThat(m.typed.linkRelation).isEqualTo("coauthor");
    assertThat(m.seedsPerEpoch).isEqualTo(prepared.edgeSplit.trainPairs);
    // every training pair is stored both ways round, but is one seed
    assertThat(2 * m.seedsPerEpoch).isLessThanOrEqualTo(prepared.relations.get(0).edges);
  }

  @Tag("slow")
  @Test
  void inlineFeaturesOfLinkBatchesAreByteIdenticalAcrossModes() throws Exception {
    String[] opts = {
      "task", "link",
      "fanouts", "writes=3,-1;rev_writes=2,1;*=2,1",
      "batch-size", "16",
      "epochs", "1",
      "batches-per-shard", "2",
      "seed", "13",
      "features", "f16"
    };
    Map<String, byte[]> replicated = sample(tmp.resolve("fl-rep"), concat(opts, "threads", "2"));
    assertIdentical(
        sample(tmp.resolve("fl-part"), concat(opts, "mode", "partitioned")), replicated);
    ShardManifest m = ShardManifest.readTyped(tmp.resolve("fl-part"));
    assertThat(m.features).isEqualTo("f16");
    assertThat(m.typed.featureDims).containsExactly(2, 0, 0); // paper; author, term featureless
    var set = io.fanout.shard.TypedShardSet.open(tmp.resolve("fl-part"));
    TypedMiniBatch b = set.batches(0, true).next();
    assertThat(b.pairs()).isNotNull();
    assertThat(b.inlineFeatures()[0]).hasSize(2 * b.nodes(0).length);
    assertThat(b.inlineFeatures()[1]).isNull();
  }

  @Tag("slow")
  @Test
  void encodedRowsAreByteIdenticalAcrossModesAndThreadsAndDecodeToTheStoresRows() throws Exception {
    String[] opts = {
      "seed-type", "paper",
      "fanouts", "cites=3,2;*=2,1",
      "batch-size", "16",
      "epochs", "1",
      "batches-per-shard", "2"
    };
    for (String enc : new String[] {"int8", "int4"}) {
      Path q = tmp.resolve("store-" + enc);
      Fanout.get(spark)
          .quantize(store.toString())
          .encoding("paper=" + enc)
          .output(q.toString())
          .execute();
      Map<String, byte[]> one =
          sampleOf(q, tmp.resolve(enc + "-t1"), concat(opts, "features", enc));
      assertIdentical(
          sampleOf(q, tmp.resolve(enc + "-t3"), concat(opts, "features", enc, "threads", "3")),
          one);
      assertIdentical(
          sampleOf(
              q, tmp.resolve(enc + "-part"), concat(opts, "features", enc, "mode", "partitioned")),
          one);
      ShardManifest m = ShardManifest.readTyped(tmp.resolve(enc + "-part"));
      assertThat(m.features).isEqualTo(enc);
      assertThat(m.typed.featureDims).containsExactly(2, 0, 0);
      try (TypedGraphStore g = TypedGraphStore.open(q, true)) {
        assertThat(m.typed.featureParamsCrc32c)
            .containsExactly(g.featureParamsCrc32c(0), null, null);
        assertThat(g.featureParamsCrc32c(0)).isNotNull();
        int rowBytes = g.features(0).decoder().rowBytes();
        var raw = io.fanout.shard.TypedShardSet.open(tmp.resolve(enc + "-part"));
        var set =
            raw.withDecoders(
                new io.fanout.graph.RowDecoder[] {g.features(0).decoder(), null, null});
        var batches = set.batches(0, true);
        int n = 0;
        while (batches.hasNext()) {
          TypedMiniBatch b = batches.next();
          int[] papers = b.nodes(0);
          float[] want = new float[2 * papers.length];
          g.features(0).gather(papers, 0, papers.length, want, 0);
          assertThat(b.inlineFeatures()[0]).containsExactly(want);
          assertThat(b.inlineFeatures()[1]).isNull();
          n++;
        }
        assertThat(n).isEqualTo(m.batchesPerEpoch);
        assertThat(rowBytes).isEqualTo(enc.equals("int8") ? 2 : 1);

        // inspect --compare: the paper rows' error against the f32 store, from the rows themselves
        var res = io.fanout.cli.CliRun.cli("inspect", q.toString(), "--compare", store.toString());
        assertThat(res.code()).as(res.err()).isZero();
        var paper = res.json().get("compare").get("types").get("paper");
        int papers = (int) g.schema().type(0).count();
        int[] all = java.util.stream.IntStream.range(0, papers).toArray();
        float[] got = new float[2 * papers];
        float[] want = new float[2 * papers];
        g.features(0).gather(all, 0, papers, got, 0);
        try (TypedGraphStore f32 = TypedGraphStore.open(store, false)) {
          f32.features(0).gather(all, 0, papers, want, 0);
        }
        double max = 0;
        for (int i = 0; i < got.length; i++) {
          max = Math.max(max, Math.abs((double) got[i] - want[i]));
        }
        assertThat(paper.get("feature_encoding").asText()).isEqualTo(enc);
        assertThat(paper.get("max_abs_error").asDouble()).isEqualTo(max).isPositive();
        assertThat(res.json().get("compare").get("types").size()).isEqualTo(1);
      }
    }
    // the f32 store's paper rows are not int8 rows; shards without features name no parameters
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> sample(tmp.resolve("int8-of-f32"), concat(opts, "features", "int8")))
        .hasMessageContaining("type 'paper' keeps f32 features")
        .hasMessageContaining("--features int8");
    sample(tmp.resolve("plain-ids"), opts);
    ShardManifest plain = ShardManifest.readTyped(tmp.resolve("plain-ids"));
    assertThat(plain.typed.featureParamsCrc32c).isNull();
    assertThat(plain.typed.featureDims).isNull();
    assertThat(Files.readString(tmp.resolve("plain-ids").resolve(ShardManifest.FILE)))
        .doesNotContain("feature_params_crc32c");
  }

  @Tag("slow")
  @Test
  void weightedShardsAreByteIdenticalAcrossModesAndThreads() throws Exception {
    // cites and writes (and their reverses) are weighted, has_term and coauthor are not
    String[] paperOpts = {
      "seed-type", "paper",
      "split", "train",
      "fanouts", "cites=3,2;writes=2,-1;has_term=2,0;*=2,1",
      "batch-size", "9",
      "epochs", "2",
      "batches-per-shard", "2",
      "seed", "23",
      "weighted", "true"
    };
    Map<String, byte[]> replicated =
        sample(tmp.resolve("w-rep"), concat(paperOpts, "threads", "1"));
    Map<String, byte[]> replicated3 =
        sample(tmp.resolve("w-rep3"), concat(paperOpts, "threads", "3"));
    Map<String, byte[]> partitioned =
        sample(tmp.resolve("w-part"), concat(paperOpts, "mode", "partitioned"));
    assertIdentical(replicated3, replicated);
    assertIdentical(partitioned, replicated);
    ShardManifest m = ShardManifest.readTyped(tmp.resolve("w-part"));
    assertThat(m.options).containsEntry("weighted", "true");
    // the weights change the draws: uniform shards of the same request differ
    Map<String, byte[]> uniform =
        sample(
            tmp.resolve("w-uni"),
            concat(java.util.Arrays.copyOf(paperOpts, paperOpts.length - 2), "threads", "2"));
    assertThat(uniform.keySet()).isEqualTo(replicated.keySet());
    boolean differs = false;
    for (String k : uniform.keySet()) {
      differs |= !java.util.Arrays.equals(uniform.get(k), replicated.get(k));
    }
    assertThat(differs).isTrue();

    String[] linkOpts = {
      "task", "link",
      "fanouts", "writes=3,-1;rev_writes=2,1;*=2,1",
      "batch-size", "16",
      "epochs", "1",
      "batches-per-shard", "2",
      "seed", "5",
      "weighted", "true"
    };
    assertIdentical(
        sample(tmp.resolve("wl-part"), concat(linkOpts, "mode", "partitioned")),
        sample(tmp.resolve("wl-rep"), concat(linkOpts, "threads", "2")));
  }

  @Tag("slow")
  @Test
  void batchByPartitionIsByteIdenticalAndKeepsBatchesInOnePartition() throws Exception {
    String[] opts = {
      "seed-type", "paper",
      "split", "all",
      "fanouts", "cites=3,2;writes=2,-1;*=2,1",
      "batch-size", "8",
      "epochs", "2",
      "batches-per-shard", "4",
      "seed", "31"
    };
    String[] byPartition = concat(opts, "batch-by-partition", "true");
    Map<String, byte[]> replicated =
        sample(tmp.resolve("bp-rep"), concat(byPartition, "threads", "1"));
    assertIdentical(
        sample(tmp.resolve("bp-rep3"), concat(byPartition, "threads", "3")), replicated);
    io.fanout.spark.SampleResult routed =
        run(store, tmp.resolve("bp-part"), concat(byPartition, "mode", "partitioned"));
    Map<String, byte[]> partitioned = SampleFixtures.files(tmp.resolve("bp-part"));
    partitioned.remove(ShardManifest.FILE);
    assertIdentical(partitioned, replicated);
    ShardManifest m = ShardManifest.readTyped(tmp.resolve("bp-part"));
    assertThat(m.options).containsEntry("batch-by-partition", "true");
    io.fanout.spark.SampleResult plainRun =
        run(store, tmp.resolve("bp-plain"), concat(opts, "mode", "partitioned"));
    // each batch's home answers its requests to partition p of every type without the shuffle
    assertThat(routed.shuffleBytes()).isPositive().isLessThan(plainRun.shuffleBytes());

    long[] starts;
    try (TypedGraphStore g = TypedGraphStore.open(store, false)) {
      starts = g.partitionStarts(g.schema().typeIndex("paper"));
    }
    assertThat(starts).hasSize(4); // three partitions of paper
    int[] mixed = mixedBatches(tmp.resolve("bp-rep"), starts);
    // only a chunk straddling the end of a partition mixes: at most partitions - 1 per epoch
    assertThat(mixed[0]).isLessThanOrEqualTo(2);
    assertThat(mixed[1]).isLessThanOrEqualTo(2);
    int[] plain = mixedBatches(tmp.resolve("bp-plain"), starts);
    assertThat(plain[0] + plain[1]).isGreaterThan(4); // shuffled seeds mix partitions
  }

  /**
   * The seed type must be named when two types are labelled; any thread count gives the same typed
   * parts; every sampled edge of every block exists in its relation of the store, every seed is of
   * the train split, and each epoch covers every train seed once. Not tagged slow: the fast set
   * samples a prepared typed store here.
   */
  @Test
  void samplesAPreparedTypedStore() throws Exception {
    Path out = tmp.resolve("ambiguous");
    assertThatThrownBy(() -> run(store, out))
        .hasMessageContaining("several labelled vertex types (paper, author)")
        .hasMessageContaining("--seed-type");

    String[] opts = {
      "seed-type", "paper",
      "fanouts", "cites=3,2;*=2,-1",
      "batch-size", "8",
      "epochs", "2",
      "batches-per-shard", "2",
      "seed", "11"
    };
    Path a = tmp.resolve("typed-t1");
    Path b = tmp.resolve("typed-t2");
    run(store, a, concat(opts, "threads", "1"));
    run(store, b, concat(opts, "threads", "2"));
    SameShards.assertByteIdentical(a, b);

    TypedShardSet set = TypedShardSet.open(a);
    assertThat(set.manifest().typed.relations)
        .extracting(rel -> rel.name)
        .contains("cites", "writes");
    try (TypedGraphStore g = TypedGraphStore.open(store, true)) {
      TypedSchema s = g.schema();
      assertThat(set.shape().numRelations()).isEqualTo(s.numRelations());
      int paper = s.typeIndex("paper");
      Set<Integer> train = new HashSet<>();
      for (int v = 0; v < g.vertices(paper).numVertices(); v++) {
        if (g.vertices(paper).split(v) == io.fanout.store.StoreLayout.SPLIT_TRAIN) {
          train.add(v);
        }
      }
      assertThat(train).hasSize(50); // 150 papers, every third in train
      for (int e = 0; e < 2; e++) {
        Set<Integer> seen = new HashSet<>();
        for (Iterator<TypedMiniBatch> it = set.batches(e, true); it.hasNext(); ) {
          TypedMiniBatch mb = it.next();
          assertThat(mb.seedType()).isEqualTo(paper);
          for (int i = 0; i < mb.numSeeds(); i++) {
            int v = mb.nodes(paper)[i];
            assertThat(train).contains(v);
            assertThat(seen.add(v)).isTrue();
            assertThat(mb.labels()[i]).isEqualTo(g.vertices(paper).label(v));
          }
          for (int h = 1; h <= mb.layers(); h++) {
            for (int rel = 0; rel < s.numRelations(); rel++) {
              checkEdges(mb, h, rel, s.relation(rel), g.inNeighbors(rel));
            }
          }
        }
        assertThat(seen).isEqualTo(train);
      }
    }
  }

  private static void checkEdges(
      TypedMiniBatch mb, int h, int r, TypedSchema.Relation rel, CsrGraph csr) {
    int[] ptr = mb.indptr(h, r);
    int[] ix = mb.indices(h, r);
    for (int i = 0; i + 1 < ptr.length; i++) {
      int v = mb.nodes(rel.dstType())[i];
      for (int e = ptr[i]; e < ptr[i + 1]; e++) {
        int u = mb.nodes(rel.srcType())[ix[e]];
        boolean found = false;
        for (long p = csr.rowStart(v); p < csr.rowEnd(v) && !found; p++) {
          found = csr.neighbor(p) == u;
        }
        assertThat(found).as("%s edge %d -> %d", rel.name(), u, v).isTrue();
      }
    }
  }

  /**
   * Per epoch, the batches whose seeds lie in more than one partition of {@code starts}; checks
   * every paper is a seed once an epoch.
   */
  private static int[] mixedBatches(Path dir, long[] starts) {
    ShardManifest m = ShardManifest.readTyped(dir);
    int paper = m.typed.seedTypeIndex();
    int[] mixed = new int[m.epochs];
    java.util.List<java.util.Set<Integer>> seen = new ArrayList<>();
    for (int e = 0; e < m.epochs; e++) {
      seen.add(new java.util.HashSet<>());
    }
    for (ShardManifest.Part part : m.files) {
      try (TypedShardFileReader rd = new TypedShardFileReader(m.dataRoot(dir).resolve(part.path))) {
        while (rd.hasNext()) {
          TypedMiniBatch b = TypedBatchCodec.decode(rd.next(), m.typed.shape());
          java.util.Set<Integer> parts = new java.util.HashSet<>();
          for (int i = 0; i < b.numSeeds(); i++) {
            int v = b.nodes(paper)[i];
            assertThat(seen.get(b.epoch()).add(v)).as("paper %d twice", v).isTrue();
            int p = 0;
            while (starts[p + 1] <= v) {
              p++;
            }
            parts.add(p);
          }
          if (parts.size() > 1) {
            mixed[b.epoch()]++;
          }
        }
      }
    }
    for (java.util.Set<Integer> s : seen) {
      assertThat(s).hasSize(150);
    }
    return mixed;
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
