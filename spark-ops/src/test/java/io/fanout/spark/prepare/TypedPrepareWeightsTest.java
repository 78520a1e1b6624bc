package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
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
 * Edge weights on a typed graph: {@code --weight-column w} weighs every relation whose table has
 * {@code w}, a relation's own weight column ({@code weightColumn}, the spec's {@code
 * weight_column}) another, {@code --add-reverse} carries each edge's weight to its reverse and
 * {@code --dedupe} sums repeated edges' weights. The weights read back through {@link
 * TypedGraphStore} are compared, in CSR order, with a reference built from the input rows and the
 * store's id maps; bad weights are refused naming the relation, the column and a row.
 */
class TypedPrepareWeightsTest {
  static final int USERS = 12;
  static final int ITEMS = 7;
  static final StructType USER = new StructType().add("id", DataTypes.LongType);
  static final StructType ITEM = new StructType().add("id", DataTypes.StringType);
  static final StructType BOUGHT =
      new StructType()
          .add("src", DataTypes.LongType)
          .add("dst", DataTypes.StringType)
          .add("w", DataTypes.DoubleType);
  static final StructType FOLLOWS =
      new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType);
  static final StructType RATED =
      new StructType()
          .add("src", DataTypes.StringType)
          .add("dst", DataTypes.LongType)
          .add("score", DataTypes.FloatType);

  static SparkSession spark;
  static List<Row> bought;
  static List<Row> follows;
  static List<Row> rated;
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedPrepareWeightsTest");
    SplittableRandom r = new SplittableRandom(17);
    bought = new ArrayList<>();
    for (int e = 0; e < 70; e++) {
      double w = r.nextInt(8) == 0 ? 0 : r.nextInt(1, 40) * 0.25; // one in eight zero
      bought.add(RowFactory.create(100L + r.nextInt(USERS), "i" + r.nextInt(ITEMS), w));
    }
    bought.add(RowFactory.create(100L, "i3", 0.75)); // repeated edges: their weights add up
    bought.add(RowFactory.create(100L, "i3", 2.5));
    follows = new ArrayList<>();
    for (int e = 0; e < 30; e++) {
      follows.add(RowFactory.create(100L + r.nextInt(USERS), 100L + r.nextInt(USERS)));
    }
    rated = new ArrayList<>();
    for (int e = 0; e < 40; e++) {
      float s = (float) (r.nextDouble() * 5);
      rated.add(RowFactory.create("i" + r.nextInt(ITEMS), 100L + r.nextInt(USERS), s));
    }
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static Dataset<Row> df(List<Row> rows, StructType s) {
    return spark.createDataFrame(rows, s);
  }

  static Dataset<Row> users() {
    List<Row> rows = new ArrayList<>();
    for (long i = 0; i < USERS; i++) {
      rows.add(RowFactory.create(100L + i));
    }
    return df(rows, USER);
  }

  static Dataset<Row> items() {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < ITEMS; i++) {
      rows.add(RowFactory.create("i" + i));
    }
    return df(rows, ITEM);
  }

  PrepareAction graph(List<Row> boughtRows, List<Row> ratedRows) {
    return Fanout.get(spark)
        .prepare()
        .vertices("user", users())
        .vertices("item", items())
        .edges("bought", "user", "item", df(boughtRows, BOUGHT))
        .edges("follows", "user", "user", df(follows, FOLLOWS))
        .edges("rated", "item", "user", df(ratedRows, RATED))
        .weightColumn("rated", "score")
        .option("weight-column", "w")
        .output(tmp.resolve("store").toString());
  }

  @Tag("slow")
  @Test
  void weightsAreStoredPerRelationInCsrOrder() throws Exception {
    Path out = tmp.resolve("store");
    StoreManifest m =
        graph(bought, rated)
            .option("add-reverse", "true")
            .option("dedupe", "true")
            .option("partitions", "2")
            .execute()
            .manifest();
    assertThat(m.relations)
        .extracting(x -> x.name)
        .containsExactly("bought", "follows", "rated", "rev_bought", "rev_follows", "rev_rated");
    assertThat(m.relations)
        .extracting(x -> x.weighted)
        .containsExactly(true, false, true, true, false, true);
    assertThat(m.weighted).isTrue();
    assertThat(m.options).containsEntry("weight-column", "w");
    assertThat(m.files)
        .extracting(f -> f.path)
        .contains("relations/rev_rated/weights/part-00001.wgt")
        .noneMatch(p -> p.startsWith("relations/follows/weights"));
    assertThat(Files.readString(out.resolve("manifest.json")))
        .contains("\"weighted\" : true")
        .doesNotContain("\"weighted\" : false");

    try (TypedGraphStore g = TypedGraphStore.open(out, true)) {
      TypedSchema s = g.schema();
      Map<Object, Integer> user = denseIds(g, s.typeIndex("user"));
      Map<Object, Integer> item = denseIds(g, s.typeIndex("item"));
      assertWeights(g, s.relationIndex("bought"), reference(bought, user, item, false, 2));
      assertWeights(g, s.relationIndex("rev_bought"), reference(bought, user, item, true, 2));
      assertWeights(g, s.relationIndex("rated"), reference(rated, item, user, false, 2));
      assertWeights(g, s.relationIndex("rev_rated"), reference(rated, item, user, true, 2));
      assertThat(g.weights(s.relationIndex("follows"))).isNull();
      assertThat(g.weights(s.relationIndex("rev_follows"))).isNull();
      // the repeated edge weighs the sum of its copies
      int b = s.relationIndex("bought");
      CsrGraph csr = g.inNeighbors(b);
      float sum = 0;
      for (Row e : bought) {
        if (e.getLong(0) == 100L && e.getString(1).equals("i3")) {
          sum += (float) e.getDouble(2);
        }
      }
      int u = user.get(100L);
      int i3 = item.get("i3");
      boolean found = false;
      for (long p = csr.rowStart(i3); p < csr.rowEnd(i3); p++) {
        if (csr.neighbor(p) == u) {
          assertThat(g.weights(b).weight(p)).isEqualTo(sum);
          found = true;
        }
      }
      assertThat(found).isTrue();
    }
  }

  /** Type-local dense id of every original id of type {@code t}, from the store's id map. */
  static Map<Object, Integer> denseIds(TypedGraphStore g, int t) {
    Map<Object, Integer> out = new HashMap<>();
    for (Row r : spark.read().parquet(g.idMap(t).toString()).collectAsList()) {
      out.put(r.get(r.fieldIndex("id")), r.getInt(r.fieldIndex("dense_id")));
    }
    return out;
  }

  /**
   * Per destination (dense id), its in-neighbors ascending with their weights: the copies of an
   * edge merged into one weighing their sum (in double, ascending, then float32). Column 2 of
   * {@code rows} holds the weight; {@code reverse} flips the edges.
   */
  static Map<Integer, TreeMap<Integer, Float>> reference(
      List<Row> rows, Map<Object, Integer> src, Map<Object, Integer> dst, boolean reverse, int w) {
    Map<Integer, TreeMap<Integer, List<Float>>> copies = new HashMap<>();
    for (Row r : rows) {
      int s = src.get(r.get(0));
      int d = dst.get(r.get(1));
      float weight = ((Number) r.get(w)).floatValue();
      copies
          .computeIfAbsent(reverse ? s : d, k -> new TreeMap<>())
          .computeIfAbsent(reverse ? d : s, k -> new ArrayList<>())
          .add(weight);
    }
    Map<Integer, TreeMap<Integer, Float>> out = new HashMap<>();
    copies.forEach(
        (d, row) -> {
          TreeMap<Integer, Float> merged = new TreeMap<>();
          row.forEach(
              (s, ws) -> {
                ws.sort(null);
                double sum = 0;
                for (float x : ws) {
                  sum += x;
                }
                merged.put(s, (float) sum);
              });
          out.put(d, merged);
        });
    return out;
  }

  static void assertWeights(
      TypedGraphStore g, int relation, Map<Integer, TreeMap<Integer, Float>> want) {
    CsrGraph csr = g.inNeighbors(relation);
    EdgeWeights w = g.weights(relation);
    String name = g.schema().relation(relation).name();
    long edges = 0;
    for (int v = 0; v < csr.numVertices(); v++) {
      List<Integer> gotSrc = new ArrayList<>();
      List<Float> gotW = new ArrayList<>();
      for (long p = csr.rowStart(v); p < csr.rowEnd(v); p++) {
        gotSrc.add(csr.neighbor(p));
        gotW.add(w.weight(p));
      }
      TreeMap<Integer, Float> row = want.getOrDefault(v, new TreeMap<>());
      assertThat(gotSrc).as("%s row %d", name, v).containsExactlyElementsOf(row.keySet());
      assertThat(gotW).as("%s row %d weights", name, v).containsExactlyElementsOf(row.values());
      edges += row.size();
    }
    assertThat(csr.numEdges()).isEqualTo(edges).isPositive();
  }

  @Test
  void badWeightsAreRefusedNamingTheRelationColumnAndRow() {
    List<Row> negative = new ArrayList<>(bought);
    negative.add(RowFactory.create(101L, "i2", -0.5));
    assertThatThrownBy(() -> graph(negative, rated).execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("relation 'bought' (DataFrame): column 'w'")
        .hasMessageContaining("negative weight")
        .hasMessageContaining("\"w\":-0.5")
        .hasMessageNotContaining("\n");
    List<Row> nan = new ArrayList<>(rated);
    nan.add(RowFactory.create("i1", 102L, Float.NaN));
    assertThatThrownBy(() -> graph(bought, nan).execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("relation 'rated' (DataFrame): column 'score'")
        .hasMessageContaining("NaN");
    assertThatThrownBy(() -> graph(bought, rated).option("weight-column", "wt").execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--weight-column wt: no relation's table has column 'wt'");
    assertThatThrownBy(() -> graph(bought, rated).weightColumn("follows", "w").execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("relation 'follows' (DataFrame): missing column 'w'")
        .hasMessageContaining("weight_column");
    assertThat(tmp.resolve("store").resolve("manifest.json")).doesNotExist();
  }

  @Tag("slow")
  @Test
  void oneTypeWeightedGraphThroughTheTypedApiIsTheOneTableStoreByteForByte() throws Exception {
    Path plain = tmp.resolve("plain");
    Path typed = tmp.resolve("typed");
    List<Row> weighted = new ArrayList<>();
    for (Row f : follows) {
      weighted.add(RowFactory.create(f.get(0), f.get(1), 0.5 + (f.getLong(0) % 3)));
    }
    StructType s = FOLLOWS.add("w", DataTypes.DoubleType);
    Fanout.get(spark)
        .prepare(users(), df(weighted, s))
        .option("weight-column", "w")
        .output(plain.toString())
        .execute();
    Fanout.get(spark)
        .prepare()
        .vertices("user", users())
        .edges("follows", "user", "user", df(weighted, s))
        .weightColumn("follows", "w")
        .output(typed.toString())
        .execute();
    assertThat(StoreManifest.read(typed).weighted).isTrue();
    assertThat(TypedPrepareSpecTest.tree(typed)).isEqualTo(TypedPrepareSpecTest.tree(plain));
  }
}
