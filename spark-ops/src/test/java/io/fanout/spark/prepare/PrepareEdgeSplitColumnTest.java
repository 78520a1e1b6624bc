package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.graph.GraphStore;
import io.fanout.spark.Fanout;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
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

/**
 * {@code prepare --edge-split-column}: the edge table's own split column decides which pairs are
 * held out; bad values and pairs whose edges disagree are refused, naming the column and the row.
 */
class PrepareEdgeSplitColumnTest {
  static SparkSession spark;
  static Dataset<Row> vertices;
  static final StructType EDGES =
      new StructType()
          .add("src", DataTypes.LongType)
          .add("dst", DataTypes.LongType)
          .add("split", DataTypes.StringType);

  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PrepareEdgeSplitColumnTest");
    List<Row> v = new ArrayList<>();
    for (long i = 0; i < 200; i++) {
      v.add(RowFactory.create(i * 3));
    }
    vertices = spark.createDataFrame(v, new StructType().add("id", DataTypes.LongType));
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static String splitOf(long a, long b) {
    long h = Math.min(a, b) * 31 + Math.max(a, b);
    return h % 10 == 0 ? "test" : h % 10 == 1 ? " VAL " : "train";
  }

  StoreManifest prepare(String name, List<Row> edges, String... options) {
    var a =
        Fanout.get(spark)
            .prepare(vertices, spark.createDataFrame(edges, EDGES))
            .option("undirected", "true")
            .option("dedupe", "true")
            .option("self-loops", "drop")
            .option("partitions", "2")
            .option("edge-split-column", "split");
    for (int i = 0; i < options.length; i += 2) {
      a = a.option(options[i], options[i + 1]);
    }
    return a.output(tmp.resolve(name).toString()).execute().manifest();
  }

  @Test
  void theColumnDecidesWhichPairsAreHeldOut() {
    List<Row> e = new ArrayList<>();
    Map<String, Set<String>> want = new HashMap<>();
    for (String s : List.of("train", "val", "test")) {
      want.put(s, new HashSet<>());
    }
    Random r = new Random(3);
    for (int i = 0; i < 1200; i++) {
      long a = r.nextInt(200) * 3L;
      long b = r.nextInt(200) * 3L;
      if (a == b) {
        continue;
      }
      String s = splitOf(a, b);
      e.add(RowFactory.create(a, b, s));
      if (i % 4 == 0) {
        e.add(RowFactory.create(b, a, s)); // the other direction, same split
      }
      want.get(s.trim().toLowerCase(java.util.Locale.ROOT))
          .add(Math.min(a, b) + "-" + Math.max(a, b));
    }
    StoreManifest m = prepare("col", e);
    assertThat(m.edgeSplit.column).isEqualTo("split");
    assertThat(m.edgeSplit.fractions).isNull();
    assertThat(m.options).containsEntry("edge-split-column", "split");
    assertThat(m.edgeSplit.valPairs).isEqualTo(want.get("val").size());
    assertThat(m.edgeSplit.testPairs).isEqualTo(want.get("test").size());
    assertThat(m.edgeSplit.trainPairs).isEqualTo(want.get("train").size());
    try (GraphStore g = GraphStore.open(tmp.resolve("col"), true)) {
      long[] ids = PrepareWeightsTest.denseToId(spark, g);
      assertThat(PrepareEdgeSplitTest.trainPairs(g, ids)).isEqualTo(want.get("train"));
      assertThat(PrepareEdgeSplitTest.heldOut(g, "val", 1, ids)).isEqualTo(want.get("val"));
      assertThat(PrepareEdgeSplitTest.heldOut(g, "test", 1, ids)).isEqualTo(want.get("test"));
      assertThat(PrepareEdgeSplitTest.heldOut(g, "test", 0, ids))
          .hasSameSizeAs(want.get("test"))
          .doesNotContainAnyElementsOf(want.get("train"));
    }
  }

  @Test
  void aValueOtherThanTrainValTestIsRefusedNamingTheRow() {
    List<Row> e =
        List.of(
            RowFactory.create(0L, 3L, "train"),
            RowFactory.create(3L, 6L, "validation"),
            RowFactory.create(6L, 9L, "test"));
    assertThatThrownBy(() -> prepare("bad", e))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("column 'split'")
        .hasMessageContaining("a split other than train, val, test")
        .hasMessageContaining("\"split\":\"validation\"")
        .hasMessageContaining("\"src\":3");
    assertThat(tmp.resolve("bad")).doesNotExist();
    List<Row> nul = List.of(RowFactory.create(0L, 3L, "train"), RowFactory.create(3L, 6L, null));
    assertThatThrownBy(() -> prepare("null", nul))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("a null split");
  }

  @Test
  void theTwoDirectionsOfAPairMustAgree() {
    List<Row> e =
        List.of(
            RowFactory.create(0L, 3L, "train"),
            RowFactory.create(9L, 6L, "test"),
            RowFactory.create(6L, 9L, "train"));
    assertThatThrownBy(() -> prepare("disagree", e))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("column 'split' (--edge-split-column)")
        .hasMessageContaining("the edges between 6 and 9")
        .hasMessageContaining("'test' and 'train'");
    assertThat(tmp.resolve("disagree")).doesNotExist();
  }

  @Test
  void fractionsAndAColumnTogetherAreRefused() {
    List<Row> e = List.of(RowFactory.create(0L, 3L, "train"));
    assertThatThrownBy(() -> prepare("both", e, "edge-split", "0.8,0.1,0.1"))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("--edge-split-column split");
    List<Row> none = List.of(RowFactory.create(0L, 3L, "train"));
    assertThatThrownBy(() -> prepare("missing", none, "edge-split-column", "kind"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("missing column 'kind' (--edge-split-column)");
  }
}
