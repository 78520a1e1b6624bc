package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
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
 * Input that does not parse exactly as its schema says is refused naming the file, the row, the
 * column and the value, and nothing is published: CSV rows with a field count other than the
 * header's, unquoted feature lists, labels beyond the class limit, text features outside CSV.
 */
class PrepareStrictInputTest {
  static SparkSession spark;
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PrepareStrictInputTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  Path out() {
    return tmp.resolve("store");
  }

  PrepareAction csv(String vertices, String edges) throws IOException {
    Path v = tmp.resolve("v.csv");
    Path e = tmp.resolve("e.csv");
    Files.writeString(v, vertices);
    Files.writeString(e, edges);
    return Fanout.get(spark)
        .prepare()
        .option("vertices", v.toString())
        .option("edges", e.toString())
        .option("format", "csv")
        .output(out().toString());
  }

  PrepareAction parquet(StructType vertexSchema, Row... vertices) {
    Path v = tmp.resolve("v.parquet");
    Path e = tmp.resolve("e.parquet");
    spark.createDataFrame(List.of(vertices), vertexSchema).write().parquet(v.toString());
    spark
        .createDataFrame(
            List.of(RowFactory.create(1L, 2L)),
            new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType))
        .write()
        .parquet(e.toString());
    return Fanout.get(spark)
        .prepare()
        .option("vertices", v.toString())
        .option("edges", e.toString())
        .output(out().toString());
  }

  void fails(PrepareAction a, String... fragments) throws IOException {
    var t = assertThatThrownBy(a::execute).isInstanceOf(InvalidInputException.class);
    for (String f : fragments) {
      t.hasMessageContaining(f);
    }
    assertThat(Files.exists(out().resolve(StoreLayout.MANIFEST))).isFalse();
    if (Files.exists(out())) {
      try (Stream<Path> s = Files.list(out())) {
        assertThat(s.map(p -> p.getFileName().toString())).isEmpty();
      }
    }
  }

  @Test
  void unquotedFeatureListsAreRefusedNotReadAsOneFeature() throws IOException {
    fails(
        csv("id,features,label\n1,0.1,0.2,3\n2,0.3,0.4,1\n", "src,dst\n1,2\n"),
        "v.csv",
        "2 row(s) whose field count differs from the header's 3 columns (id,features,label)",
        "row '1,0.1,0.2,3' with 4 field(s)",
        "must be quoted");
  }

  @Test
  void aRowWithMoreFieldsThanTheHeaderIsRefused() throws IOException {
    fails(
        csv("id,label\n1,0\n2,1,extra\n", "src,dst\n1,2\n"),
        "v.csv",
        "1 row(s) whose field count differs",
        "row '2,1,extra' with 3 field(s)",
        "expected exactly 2 fields per row");
  }

  @Test
  void aRowWithFewerFieldsThanTheHeaderIsRefused() throws IOException {
    fails(
        csv("id,label,split\n1,0,train\n2,1\n", "src,dst\n1,2\n"),
        "v.csv",
        "row '2,1' with 2 field(s)",
        "expected exactly 3 fields per row");
  }

  @Test
  void anEdgeRowWithMoreFieldsThanTheHeaderIsRefused() throws IOException {
    fails(
        csv("id\n1\n2\n", "src,dst\n1,2\n2,1,0.5\n"),
        "edges ",
        "e.csv",
        "row '2,1,0.5' with 3 field(s)");
  }

  @Test
  void csvValuesMustParseExactlyAsTheirType() throws IOException {
    fails(
        csv("id,label\n1,0\n2,0.2\n", "src,dst\n1,2\n"),
        "v.csv",
        "column 'label'",
        "a non-integer label",
        "\"label\":\"0.2\"",
        "\"_file\":\"v.csv\"");
    fails(
        csv("id,label\n1,0\n2,1\n", "src,dst\n1,2.5\n"),
        "e.csv",
        "column 'dst'",
        "\"dst\":\"2.5\"");
  }

  @Test
  void aCsvLabelBeyondTheClassLimitIsRefused() throws IOException {
    fails(
        csv("id,label\n1,0\n2,2147483647\n", "src,dst\n1,2\n"),
        "v.csv",
        "column 'label'",
        "a label above 16777215",
        "\"label\":\"2147483647\"",
        "at most 2^24 classes");
    fails(
        csv("id,label\n1,0\n2,3000000000\n", "src,dst\n1,2\n"),
        "column 'label'",
        "a label above 16777215",
        "3000000000");
  }

  @Test
  void parquetLabelsBeyondTheClassLimitAreRefusedWhateverTheirWidth() throws IOException {
    StructType bigint =
        new StructType().add("id", DataTypes.LongType).add("label", DataTypes.LongType);
    fails(
        parquet(bigint, RowFactory.create(1L, 0L), RowFactory.create(2L, 3_000_000_000L)),
        "v.parquet",
        "column 'label'",
        "a label above 16777215",
        "\"id\":2,\"label\":3000000000");
    StructType integer =
        new StructType().add("id", DataTypes.LongType).add("label", DataTypes.IntegerType);
    Path v = tmp.resolve("v.parquet");
    Path e = tmp.resolve("e.parquet");
    deleteTree(v);
    deleteTree(e);
    fails(
        parquet(integer, RowFactory.create(1L, 0), RowFactory.create(2L, Integer.MAX_VALUE)),
        "column 'label'",
        "a label above 16777215",
        "\"label\":2147483647");
  }

  @Test
  void theLargestLabelGivesTwoToTheTwentyFourClasses() {
    StructType integer =
        new StructType().add("id", DataTypes.LongType).add("label", DataTypes.IntegerType);
    StoreManifest m =
        parquet(integer, RowFactory.create(1L, 0), RowFactory.create(2L, (1 << 24) - 1))
            .execute()
            .manifest();
    assertThat(m.classes).isEqualTo(1 << 24);
  }

  @Test
  void aStringFeatureColumnOutsideCsvIsRefused() throws IOException {
    StructType text =
        new StructType().add("id", DataTypes.LongType).add("features", DataTypes.StringType);
    fails(
        parquet(text, RowFactory.create(1L, "0.1,0.2"), RowFactory.create(2L, "0.3,0.4")),
        "v.parquet",
        "column 'features' has type string; expected array<float>, array<double> or an ML Vector");
  }

  @Test
  void quotedFeatureListsAreRead() throws IOException {
    StoreManifest m =
        csv("id,features,label\n1,\"0.1,0.2\",3\n2,\"0.3,0.4\",1\n", "src,dst\n1,2\n")
            .execute()
            .manifest();
    assertThat(m.featureDim).isEqualTo(2);
    assertThat(m.classes).isEqualTo(4);
  }

  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
