package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.spark.PrepareResult;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
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

/** Bad input fails clearly and publishes nothing; reruns skip, replace or refuse. */
class PrepareValidationTest {
  static SparkSession spark;
  @TempDir Path tmp;

  static final StructType V =
      new StructType()
          .add("id", DataTypes.LongType)
          .add("label", DataTypes.IntegerType)
          .add("split", DataTypes.StringType)
          .add("features", DataTypes.createArrayType(DataTypes.FloatType));
  static final StructType E =
      new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType);

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PrepareValidationTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static Row v(Long id, Integer label, String split, Float... f) {
    return RowFactory.create(id, label, split, f == null ? null : Arrays.asList(f));
  }

  static Row e(Long s, Long d) {
    return RowFactory.create(s, d);
  }

  static Dataset<Row> vertices(Row... rows) {
    return spark.createDataFrame(List.of(rows), V);
  }

  static Dataset<Row> edges(Row... rows) {
    return spark.createDataFrame(List.of(rows), E);
  }

  static Dataset<Row> goodVertices() {
    return vertices(
        v(10L, 0, "train", 1f, 2f), v(20L, 1, "val", 3f, 4f), v(30L, -1, "none", 5f, 6f));
  }

  static Dataset<Row> goodEdges() {
    return edges(e(10L, 20L), e(20L, 30L), e(30L, 10L));
  }

  Path out() {
    return tmp.resolve("store");
  }

  PrepareAction prepare(Dataset<Row> v, Dataset<Row> e) {
    return Fanout.get(spark).prepare(v, e).output(out().toString());
  }

  void assertNothingPublished() throws IOException {
    assertThat(Files.exists(out().resolve(StoreLayout.MANIFEST))).isFalse();
    if (Files.exists(out())) {
      try (Stream<Path> s = Files.list(out())) {
        assertThat(s.map(p -> p.getFileName().toString())).isEmpty();
      }
    }
  }

  void fails(PrepareAction a, String... fragments) throws IOException {
    var t = assertThatThrownBy(a::execute).isInstanceOf(InvalidInputException.class);
    for (String f : fragments) {
      t.hasMessageContaining(f);
    }
    assertNothingPublished();
  }

  @Test
  void goodGraphIsPrepared() {
    PrepareResult r = prepare(goodVertices(), goodEdges()).execute();
    StoreManifest m = r.manifest();
    assertThat(m.vertices).isEqualTo(3);
    assertThat(m.edges).isEqualTo(3);
    assertThat(m.featureDim).isEqualTo(2);
    assertThat(m.classes).isEqualTo(2);
    assertThat(m.splitCounts).containsEntry("train", 1L).containsEntry("none", 1L);
    assertThat(m.files).extracting(f -> f.path).contains("idmap/part-00000.parquet");
  }

  @Tag("slow")
  @Test
  void splitNamesAreReadWhateverTheirCaseAndSpacesAndNullOrEmptyMeansNone() {
    PrepareResult r =
        prepare(
                vertices(
                    v(1L, 0, "train", 1f),
                    v(2L, 0, " Train ", 1f),
                    v(3L, 0, "VAL", 1f),
                    v(4L, 0, "test", 1f),
                    v(5L, 0, "Test  ", 1f),
                    v(6L, 0, null, 1f),
                    v(7L, 0, "", 1f),
                    v(8L, 0, " NONE", 1f),
                    v(9L, 0, "none", 1f)),
                edges(e(1L, 2L)))
            .execute();
    assertThat(r.manifest().splitCounts)
        .containsEntry("train", 2L)
        .containsEntry("val", 1L)
        .containsEntry("test", 2L)
        .containsEntry("none", 4L);
  }

  @Test
  void missingPathAndColumn() throws IOException {
    fails(
        Fanout.get(spark)
            .prepare()
            .option("vertices", tmp.resolve("nope.parquet").toString())
            .option("edges", tmp.resolve("nope2.parquet").toString())
            .output(out().toString()),
        "vertices path",
        "nope.parquet",
        "does not exist");
    fails(prepare(goodVertices().drop("id"), goodEdges()), "missing column 'id'", "--id-column");
    fails(prepare(goodVertices(), goodEdges().drop("dst")), "edges DataFrame", "'dst'");
    fails(
        prepare(goodVertices(), goodEdges()).option("label-column", "klass"),
        "missing column 'klass'");
  }

  @Test
  void nullIdAndEndpoint() throws IOException {
    fails(
        prepare(vertices(v(1L, 0, "train", 1f), v(null, 2, "test", 1f)), edges()),
        "column 'id'",
        "null id",
        "\"label\":2",
        "expected a non-null");
    fails(
        prepare(goodVertices(), edges(e(10L, 20L), e(10L, null))),
        "edges DataFrame",
        "column 'dst'",
        "null destination",
        "{\"src\":10,\"dst\":null}");
  }

  /**
   * Parquet edges whose footers count no null endpoint pass the edge checks without a scan, with
   * the footers' row count; a file with a null endpoint is still scanned and refused naming the
   * row, and anything but a bare Parquet scan (a filter, a DataFrame in memory, a column the files
   * lack) is never read from footers.
   */
  @Test
  void edgeChecksFromParquetFootersCountTheRowsAndStillRefuseNulls() throws IOException {
    Path clean = tmp.resolve("clean-edges");
    goodEdges().repartition(2).write().parquet(clean.toString());
    Dataset<Row> read = spark.read().parquet(clean.toString());
    assertThat(InputStats.rowsWithoutNulls(read, "src", "dst")).isEqualTo(3);
    assertThat(InputStats.rowsWithoutNulls(read.where("src > 10"), "src", "dst")).isEqualTo(-1);
    assertThat(InputStats.rowsWithoutNulls(read, "src", "weight")).isEqualTo(-1);
    assertThat(InputStats.rowsWithoutNulls(goodEdges(), "src", "dst")).isEqualTo(-1);
    StoreManifest m = prepare(goodVertices(), read).execute().manifest();
    assertThat(m.edges).isEqualTo(3);

    Path nulls = tmp.resolve("null-edges");
    edges(e(10L, 20L), e(10L, null)).write().parquet(nulls.toString());
    Dataset<Row> bad = spark.read().parquet(nulls.toString());
    assertThat(InputStats.rowsWithoutNulls(bad, "src", "dst")).isEqualTo(-1);
    Files.walk(out()).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    fails(prepare(goodVertices(), bad), "column 'dst'", "null destination", "\"dst\":null");
  }

  @Test
  void duplicateIds() throws IOException {
    fails(
        prepare(
            vertices(v(7L, 0, "train", 1f), v(8L, 0, "train", 1f), v(7L, 1, "val", 2f)), edges()),
        "column 'id'",
        "duplicate vertex id 7",
        "expected unique");
  }

  @Test
  void danglingEdgesFailOrAreDropped() throws IOException {
    Dataset<Row> bad = edges(e(10L, 20L), e(20L, 99L), e(98L, 10L));
    fails(prepare(goodVertices(), bad), "2 edge(s)", "not a vertex", "--dangling drop");
    StoreManifest m = prepare(goodVertices(), bad).option("dangling", "drop").execute().manifest();
    assertThat(m.droppedDanglingEdges).isEqualTo(2);
    assertThat(m.edges).isEqualTo(1);
  }

  @Test
  void featureProblems() throws IOException {
    fails(
        prepare(vertices(v(1L, 0, "train", 1f, 2f), v(2L, 0, "train", 1f)), edges()),
        "column 'features'",
        "differing length",
        "\"id\":2",
        "\"feature_length\":1",
        "length 2");
    fails(
        prepare(vertices(v(1L, 0, "train", 1f, Float.NaN), v(2L, 0, "train", 1f, 2f)), edges()),
        "column 'features'",
        "non-finite",
        "\"id\":1");
    fails(
        prepare(
            vertices(v(1L, 0, "train", 1f, 1f), v(2L, 0, "train", Float.NEGATIVE_INFINITY, 2f)),
            edges()),
        "non-finite",
        "\"id\":2");
    fails(
        prepare(
            vertices(v(1L, 0, "train", Float.POSITIVE_INFINITY, 1f), v(2L, 0, "train", 1f, 2f)),
            edges()),
        "non-finite",
        "\"id\":1");
    fails(
        prepare(
            vertices(v(1L, 0, "train", 1f, 1f), v(2L, 0, "train", new Float[] {null, 2f})),
            edges()),
        "non-finite",
        "\"id\":2");
    fails(
        prepare(vertices(v(1L, 0, "train", 1f), v(2L, 0, "train", (Float[]) null)), edges()),
        "null features");
  }

  @Test
  void labelAndSplitProblems() throws IOException {
    fails(
        prepare(vertices(v(1L, 0, "train", 1f), v(2L, -3, "train", 1f)), edges()),
        "column 'label'",
        "below -1",
        "\"label\":-3");
    fails(
        prepare(vertices(v(1L, 0, "train", 1f), v(2L, 1, "holdout", 1f)), edges()),
        "column 'split'",
        "unknown split",
        "holdout",
        "train, val, test, none");
  }

  @Test
  void emptyVertexTable() throws IOException {
    fails(prepare(vertices(), edges()), "vertex table is empty");
  }

  @Test
  void csvIdsMustBeNumeric() throws IOException {
    Path v = tmp.resolve("v.csv");
    Path e = tmp.resolve("e.csv");
    Files.writeString(v, "id,label,split,features\n1,0,train,[1.0;2.0]\nx7,1,test,[3;4]\n");
    Files.writeString(e, "src,dst\n1,1\n");
    fails(
        Fanout.get(spark)
            .prepare()
            .option("vertices", v.toString())
            .option("edges", e.toString())
            .option("format", "csv")
            .output(out().toString()),
        "v.csv",
        "column 'id'",
        "non-numeric id",
        "x7");
    Files.writeString(v, "id,label,split,features\n1,0,train,[1.0;2.0]\n7,1,test,[3;4]\n");
    StoreManifest m =
        Fanout.get(spark)
            .prepare()
            .option("vertices", v.toString())
            .option("edges", e.toString())
            .option("format", "csv")
            .output(out().toString())
            .execute()
            .manifest();
    assertThat(m.featureDim).isEqualTo(2);
    assertThat(m.idType).isEqualTo("long");
    assertThat(m.edges).isEqualTo(1);
  }

  @Test
  void twoIdenticalPreparesStartedTogetherPublishOnceAndTheOtherIsRefusedOrSkips()
      throws Exception {
    Path v = tmp.resolve("v-together.parquet");
    Path e = tmp.resolve("e-together.parquet");
    goodVertices().write().parquet(v.toString());
    goodEdges().write().parquet(e.toString());
    java.util.concurrent.Callable<PrepareResult> run =
        () ->
            Fanout.get(spark)
                .prepare()
                .option("vertices", v.toString())
                .option("edges", e.toString())
                .output(out().toString())
                .execute();
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      java.util.concurrent.Future<PrepareResult> a = pool.submit(run);
      java.util.concurrent.Future<PrepareResult> b = pool.submit(run);
      // The second is refused while the first writes, or skips when it starts after the publish.
      List<String> outcomes = new java.util.ArrayList<>();
      for (java.util.concurrent.Future<PrepareResult> f : List.of(a, b)) {
        try {
          outcomes.add(f.get().skipped() ? "skipped" : "published");
        } catch (java.util.concurrent.ExecutionException x) {
          assertThat(x.getCause())
              .isInstanceOf(io.fanout.store.InvalidInputException.class)
              .hasMessageContaining("another writer");
          outcomes.add("refused");
        }
      }
      assertThat(outcomes).contains("published").hasSize(2);
      assertThat(outcomes.stream().filter("published"::equals)).hasSize(1);
    } finally {
      pool.shutdownNow();
    }
    StoreManifest m = StoreManifest.read(out());
    try (Stream<Path> s = Files.list(out())) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("manifest.json", "_publish.lock", m.dataDir);
    }
    assertThat(m.vertices).isEqualTo(3);
  }

  @Test
  void rerunIsSkippedOtherOptionsNeedOverwrite() throws IOException {
    Path v = tmp.resolve("v.parquet");
    Path e = tmp.resolve("e.parquet");
    goodVertices().write().parquet(v.toString());
    goodEdges().write().parquet(e.toString());
    PrepareAction first =
        Fanout.get(spark)
            .prepare()
            .option("vertices", v.toString())
            .option("edges", e.toString())
            .output(out().toString());
    PrepareResult r1 = first.execute();
    assertThat(r1.skipped()).isFalse();
    byte[] manifest = Files.readAllBytes(out().resolve(StoreLayout.MANIFEST));
    PrepareResult r2 = first.execute();
    assertThat(r2.skipped()).isTrue();
    assertThat(Files.readAllBytes(out().resolve(StoreLayout.MANIFEST))).isEqualTo(manifest);

    PrepareAction other =
        Fanout.get(spark)
            .prepare()
            .option("vertices", v.toString())
            .option("edges", e.toString())
            .option("undirected", "true")
            .output(out().toString());
    assertThatThrownBy(other::execute)
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("mode(\"overwrite\")");
    assertThat(StoreManifest.read(out()).edges).isEqualTo(3);
    PrepareResult r3 = other.option("overwrite", "true").execute();
    assertThat(r3.skipped()).isFalse();
    assertThat(r3.manifest().edges).isEqualTo(6);
    assertThat(StoreManifest.read(out()).edges).isEqualTo(6);
  }

  @Test
  void deadRunPublishesNothingAndNextRunSucceeds() throws IOException {
    // a run that dies after writing files: the leftovers of a killed driver (its lock is gone)
    Path staging = out().resolve("v-0007");
    Files.createDirectories(staging.resolve("csr"));
    Files.writeString(staging.resolve("csr/part-00000.csr"), "half");
    Files.writeString(out().resolve("_writing-v-0007.lock"), "");
    assertThatThrownBy(() -> StoreManifest.read(out())).hasMessageContaining("incomplete store");
    // a run that fails in a task midway (duplicate id found while writing) cleans up after itself
    fails(
        prepare(vertices(v(1L, 0, "train", 1f), v(1L, 0, "train", 1f)), edges()),
        "duplicate vertex id 1");
    PrepareResult r = prepare(goodVertices(), goodEdges()).execute();
    assertThat(r.manifest().vertices).isEqualTo(3);
    try (Stream<Path> s = Files.list(out())) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("manifest.json", "_publish.lock", r.manifest().dataDir);
    }
    try (Stream<Path> s = Files.list(r.manifest().dataRoot(out()))) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("idmap", "csr", "nodes", "features");
    }
  }

  @Test
  void badOptionsAreRejected() {
    assertThatThrownBy(
            () -> prepare(goodVertices(), goodEdges()).option("undirectd", "true").execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("unknown option 'undirectd'");
    assertThatThrownBy(
            () -> prepare(goodVertices(), goodEdges()).option("self-loops", "maybe").execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("keep|drop");
  }
}
