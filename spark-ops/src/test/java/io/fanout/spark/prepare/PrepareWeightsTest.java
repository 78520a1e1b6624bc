package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import io.fanout.graph.GraphStore;
import io.fanout.graph.StorePartition;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code prepare --weight-column}: weights aligned with the CSR, merged, mirrored or refused. */
class PrepareWeightsTest {
  static SparkSession spark;
  @TempDir Path tmp;

  static final StructType V = new StructType().add("id", DataTypes.LongType);
  static final StructType E =
      new StructType()
          .add("src", DataTypes.LongType)
          .add("dst", DataTypes.LongType)
          .add("w", DataTypes.DoubleType);

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PrepareWeightsTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static Dataset<Row> vertices(long n) {
    List<Row> rows = new ArrayList<>();
    for (long v = 0; v < n; v++) {
      rows.add(RowFactory.create(v * 10));
    }
    return spark.createDataFrame(rows, V);
  }

  static Row e(long s, long d, Double w) {
    return RowFactory.create(s, d, w);
  }

  static Dataset<Row> edges(Row... rows) {
    return spark.createDataFrame(List.of(rows), E);
  }

  PrepareAction prepare(Dataset<Row> v, Dataset<Row> e, String name) {
    return Fanout.get(spark)
        .prepare(v, e)
        .option("weight-column", "w")
        .option("partitions", "3")
        .output(tmp.resolve(name).toString());
  }

  /** Every edge of the store as "origSrc->origDst" with its weight, read through GraphStore. */
  static Map<String, Float> read(Path store) {
    Map<String, Float> out = new HashMap<>();
    try (GraphStore g = GraphStore.open(store, true)) {
      assertThat(g.weighted()).isTrue();
      CsrGraph csr = g.csr();
      EdgeWeights w = g.weights();
      long[] ids = denseToId(g);
      for (int v = 0; v < csr.numVertices(); v++) {
        for (long p = csr.rowStart(v); p < csr.rowEnd(v); p++) {
          Float prev = out.put(ids[csr.neighbor(p)] + "->" + ids[v], w.weight(p));
          assertThat(prev).as("duplicate edge").isNull();
        }
      }
      // StorePartition (the partitioned sampler's view) reads the same weights
      StoreManifest m = g.manifest();
      for (int p = 0; p < m.partitions; p++) {
        StorePartition sp = StorePartition.of(store, m, p);
        CsrGraph pc = sp.csr();
        EdgeWeights pw = sp.weights();
        for (long v = sp.firstVertex(); v < sp.firstVertex() + sp.numVertices(); v++) {
          long global = csr.rowStart((int) v);
          for (long q = pc.rowStart((int) v); q < pc.rowEnd((int) v); q++) {
            assertThat(pw.weight(q)).isEqualTo(w.weight(global + q - pc.rowStart((int) v)));
          }
        }
      }
    }
    return out;
  }

  static long[] denseToId(GraphStore g) {
    return denseToId(spark, g);
  }

  /** Original id (long) of every dense id of {@code g}, read from its id map. */
  static long[] denseToId(SparkSession spark, GraphStore g) {
    long[] ids = new long[g.csr().numVertices()];
    Dataset<Row> map =
        spark.read().parquet(g.dataRoot().resolve(StoreLayout.IDMAP_DIR).toUri().toString());
    for (Row r : map.collectAsList()) {
      ids[((Number) r.get(r.fieldIndex("dense_id"))).intValue()] =
          ((Number) r.get(r.fieldIndex("id"))).longValue();
    }
    return ids;
  }

  @Test
  void weightsAreAlignedWithTheCsrAndChecksummed() {
    StoreManifest m =
        prepare(
                vertices(6),
                edges(
                    e(0, 10, 1.5),
                    e(20, 10, 0.0),
                    e(30, 10, 7.0),
                    e(10, 50, 2.0),
                    e(50, 50, 3.0),
                    e(40, 0, 1e-3)),
                "aligned")
            .execute()
            .manifest();
    assertThat(m.weighted).isTrue();
    assertThat(m.options).containsEntry("weight-column", "w");
    assertThat(m.files)
        .extracting(f -> f.path)
        .contains("weights/part-00000.wgt", "weights/part-00001.wgt", "weights/part-00002.wgt");
    assertThat(read(tmp.resolve("aligned")))
        .containsOnly(
            Map.entry("0->10", 1.5f),
            Map.entry("20->10", 0f),
            Map.entry("30->10", 7f),
            Map.entry("10->50", 2f),
            Map.entry("50->50", 3f),
            Map.entry("40->0", 1e-3f));
  }

  @Test
  void dedupeSumsWeightsAndUndirectedMirrorsThem() {
    Dataset<Row> es =
        edges(
            e(0, 10, 1.5),
            e(0, 10, 2.25),
            e(0, 10, 0.25),
            e(20, 10, 0.0),
            e(30, 30, 5.0),
            e(10, 0, 1.0));
    Path store = tmp.resolve("dedupe");
    prepare(vertices(4), es, "dedupe")
        .option("dedupe", "true")
        .option("undirected", "true")
        .execute();
    // 0->10 three times (4.0) plus the reverse of 10->0 (1.0), and the same for 10->0; the
    // self-loop once.
    assertThat(read(store))
        .containsOnly(
            Map.entry("0->10", 5f),
            Map.entry("10->0", 5f),
            Map.entry("20->10", 0f),
            Map.entry("10->20", 0f),
            Map.entry("30->30", 5f));
    // Without --dedupe every copy keeps its own weight, in ascending order within the pair.
    prepare(vertices(4), es, "multi").execute();
    try (GraphStore g = GraphStore.open(tmp.resolve("multi"))) {
      long[] ids = denseToId(g);
      int v10 = 0;
      while (ids[v10] != 10) {
        v10++;
      }
      List<Float> row = new ArrayList<>();
      for (long p = g.csr().rowStart(v10); p < g.csr().rowEnd(v10); p++) {
        if (ids[g.csr().neighbor(p)] == 0) {
          row.add(g.weights().weight(p));
        }
      }
      assertThat(row).containsExactly(0.25f, 1.5f, 2.25f);
    }
  }

  @Test
  void shuffledEndpointJoinsWriteTheSameBytesAsBroadcastOnes() throws IOException {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 400; i++) { // repeats, self-loops and both directions of some pairs
      long s = (i * 7L) % 50;
      long d = (i * 13L + i / 50) % 50;
      rows.add(e(s * 10, d * 10, (i % 9) * 0.25));
    }
    Dataset<Row> es = spark.createDataFrame(rows, E);
    prepare(vertices(50), es, "broadcast")
        .option("dedupe", "true")
        .option("undirected", "true")
        .execute();
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1"); // the large-graph path
    try {
      prepare(vertices(50), es, "shuffled")
          .option("dedupe", "true")
          .option("undirected", "true")
          .execute();
    } finally {
      spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
    }
    Path a = tmp.resolve("broadcast");
    assertThat(StoreManifest.read(a).edges).isPositive();
    PrepareEdgeSortTest.assertSameBytes(a, tmp.resolve("shuffled"));
  }

  @Test
  void unweightedStoresRecordNoWeightsAndRefuseWeightReads() {
    Path store = tmp.resolve("plain");
    StoreManifest m =
        Fanout.get(spark)
            .prepare(vertices(2), edges(e(0, 10, 1.0)))
            .output(store.toString())
            .execute()
            .manifest();
    assertThat(m.weighted).isFalse();
    assertThat(m.options).doesNotContainKey("weight-column");
    assertThat(m.files).extracting(f -> f.path).noneMatch(p -> p.startsWith("weights/"));
    try (GraphStore g = GraphStore.open(store)) {
      assertThatThrownBy(g::weights)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("no edge weights")
          .hasMessageContaining("--weight-column");
    }
  }

  void fails(PrepareAction a, String name, String... fragments) {
    var t = assertThatThrownBy(a::execute).isInstanceOf(InvalidInputException.class);
    for (String f : fragments) {
      t.hasMessageContaining(f);
    }
    assertThat(tmp.resolve(name).resolve(StoreLayout.MANIFEST)).doesNotExist();
  }

  @Test
  void negativeNanInfiniteAndNullWeightsAreRefusedNamingTheEdge() {
    String[] common = {"edges DataFrame", "column 'w'", "expected finite edge weights >= 0"};
    fails(
        prepare(vertices(3), edges(e(0, 10, 1.0), e(20, 10, -0.5)), "neg"),
        "neg",
        concat(common, "1 row(s) with a negative weight", "\"src\":20,\"dst\":10,\"w\":-0.5"));
    fails(
        prepare(vertices(3), edges(e(0, 10, Double.NaN), e(20, 10, 1.0)), "nan"),
        "nan",
        concat(common, "NaN or infinite", "\"src\":0,\"dst\":10"));
    fails(
        prepare(vertices(3), edges(e(0, 10, Double.POSITIVE_INFINITY)), "inf"),
        "inf",
        concat(common, "NaN or infinite", "\"src\":0,\"dst\":10"));
    fails(
        prepare(vertices(3), edges(e(0, 10, 1e300)), "big"),
        "big",
        concat(common, "beyond float32 range", "\"src\":0,\"dst\":10"));
    fails(
        prepare(vertices(3), edges(e(0, 10, null)), "null"),
        "null",
        concat(common, "null weight", "\"src\":0,\"dst\":10"));
    fails(
        prepare(vertices(3), edges(e(0, 10, 1.0)), "missing").option("weight-column", "cost"),
        "missing",
        "missing column 'cost'",
        "--weight-column");
    fails(
        Fanout.get(spark)
            .prepare(vertices(3), edges(e(0, 10, 1.0)).withColumn("flag", functionsLit()))
            .option("weight-column", "flag")
            .output(tmp.resolve("bool").toString()),
        "bool",
        "column 'flag' (--weight-column) has type BOOLEAN",
        "numeric");
  }

  private static org.apache.spark.sql.Column functionsLit() {
    return org.apache.spark.sql.functions.lit(true);
  }

  @Test
  void csvWeightsMustBeNumbers() throws IOException {
    Path v = tmp.resolve("v.csv");
    Path e = tmp.resolve("e.csv");
    Files.writeString(v, "id\n1\n2\n");
    Files.writeString(e, "src,dst,w\n1,2,0.5\n2,1,heavy\n");
    fails(csv(v, e, "csv-bad"), "csv-bad", "e.csv", "column 'w'", "non-numeric weight", "heavy");
    Files.writeString(e, "src,dst,w\n1,2,0.5\n2,1,-3\n");
    fails(csv(v, e, "csv-neg"), "csv-neg", "e.csv", "negative weight", "\"src\":\"2\"");
    Files.writeString(e, "src,dst,w\n1,2, 0.5\n2,1,3e2\n");
    csv(v, e, "csv-ok").execute();
    assertThat(read(tmp.resolve("csv-ok")))
        .containsOnly(Map.entry("1->2", 0.5f), Map.entry("2->1", 300f));
  }

  private PrepareAction csv(Path v, Path e, String name) {
    return Fanout.get(spark)
        .prepare()
        .option("vertices", v.toString())
        .option("edges", e.toString())
        .option("format", "csv")
        .option("weight-column", "w")
        .output(tmp.resolve(name).toString());
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
