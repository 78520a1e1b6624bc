package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.store.InvalidInputException;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
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
 * Bad typed input fails with one line naming the type or relation, the column and a row, and
 * publishes nothing; options not built for typed graphs are refused naming the option.
 */
class TypedPrepareErrorsTest {
  static SparkSession spark;
  @TempDir Path tmp;

  static final StructType USER =
      new StructType()
          .add("id", DataTypes.LongType)
          .add("label", DataTypes.IntegerType)
          .add("tags", DataTypes.createArrayType(DataTypes.IntegerType));
  static final StructType ITEM =
      new StructType()
          .add("id", DataTypes.StringType)
          .add("features", DataTypes.createArrayType(DataTypes.FloatType));
  static final StructType BOUGHT =
      new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.StringType);
  static final StructType FOLLOWS =
      new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType);

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedPrepareErrorsTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static Dataset<Row> users(Row... rows) {
    return spark.createDataFrame(List.of(rows), USER);
  }

  static Row user(Long id, int label, Integer... tags) {
    return RowFactory.create(id, label, tags == null ? null : Arrays.asList(tags));
  }

  static Dataset<Row> goodUsers() {
    return users(user(1L, 0, 1), user(2L, 1, 0, 2), user(3L, -1));
  }

  static Dataset<Row> items(String... ids) {
    return spark.createDataFrame(
        Arrays.stream(ids).map(i -> RowFactory.create(i, List.of(1f, 2f))).toList(), ITEM);
  }

  static Dataset<Row> bought(Object... pairs) {
    Row[] rows = new Row[pairs.length / 2];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = RowFactory.create(pairs[2 * i], pairs[2 * i + 1]);
    }
    return spark.createDataFrame(List.of(rows), BOUGHT);
  }

  static Dataset<Row> follows() {
    return spark.createDataFrame(
        List.of(RowFactory.create(1L, 2L), RowFactory.create(2L, 3L)), FOLLOWS);
  }

  Path out() {
    return tmp.resolve("store");
  }

  PrepareAction graph(Dataset<Row> users, Dataset<Row> items, Dataset<Row> bought) {
    return Fanout.get(spark)
        .prepare()
        .vertices("user", users)
        .vertices("item", items)
        .edges("bought", "user", "item", bought)
        .edges("follows", "user", "user", follows())
        .output(out().toString());
  }

  PrepareAction good() {
    return graph(goodUsers(), items("x", "y"), bought(1L, "x", 2L, "y"));
  }

  void fails(PrepareAction a, Class<? extends Exception> type, String... fragments) {
    var t = assertThatThrownBy(a::execute).isInstanceOf(type);
    for (String f : fragments) {
      t.hasMessageContaining(f);
    }
    t.satisfies(
        e -> org.assertj.core.api.Assertions.assertThat(e.getMessage()).doesNotContain("\n"));
    org.assertj.core.api.Assertions.assertThat(Files.exists(out().resolve("manifest.json")))
        .isFalse();
  }

  @Tag("slow")
  @Test
  void badRowsNameTheTypeOrRelationColumnAndRow() {
    fails(
        graph(users(user(1L, 0), user(null, 1)), items("x"), bought(1L, "x")),
        InvalidInputException.class,
        "type 'user' (DataFrame): column 'id'",
        "null id",
        "\"label\":1");
    fails(
        graph(users(user(1L, 0), user(1L, 1)), items("x"), bought(1L, "x")),
        InvalidInputException.class,
        "type 'user' (DataFrame): column 'id': duplicate vertex id 1");
    fails(
        graph(goodUsers(), items("x", "y"), bought(1L, "x", 2L, "zz")),
        InvalidInputException.class,
        "relation 'bought' (DataFrame): columns 'src'/'dst'",
        "2 -> zz",
        "types 'user' and 'item'");
    fails(
        graph(goodUsers(), items("x"), bought(1L, "x", null, "x")),
        InvalidInputException.class,
        "relation 'bought' (DataFrame): column 'src'",
        "null source");
    fails(
        good().option("labels-column", "tags").option("label-column", "label"),
        InvalidInputException.class,
        "type 'user'",
        "both a label column ('label') and a labels column ('tags')");
    fails(
        graph(users(user(1L, 0, 1, -4)), items("x"), bought(1L, "x"))
            .option("labels-column", "tags"),
        InvalidInputException.class,
        "type 'user' (DataFrame): column 'tags'",
        "a class below 0");
  }

  @Tag("slow")
  @Test
  void idsAreUniquePerTypeNotAcrossTypes() {
    Dataset<Row> numericItems =
        spark.createDataFrame(
            List.of(RowFactory.create(1L), RowFactory.create(2L)),
            new StructType().add("id", DataTypes.LongType));
    Fanout.get(spark)
        .prepare()
        .vertices("user", goodUsers())
        .vertices("item", numericItems)
        .edges(
            "likes",
            "user",
            "item",
            spark.createDataFrame(List.of(RowFactory.create(1L, 1L)), FOLLOWS))
        .edges("follows", "user", "user", follows())
        .output(out().toString())
        .execute();
  }

  @Test
  void optionsNotBuiltForTypedGraphsAreRefusedNamingThem() {
    fails(
        good().option("weight-column", "w"),
        InvalidInputException.class,
        "--weight-column w: no relation's table has column 'w'");
    fails(good().option("task", "link"), FanoutConfigException.class, "--task link");
    fails(
        good().option("id-lookup", "task"),
        FanoutConfigException.class,
        "--id-lookup task does not apply to relation 'bought': string ids of type 'item'");
    fails(
        good().option("feature-encoding", "author=f16"),
        FanoutConfigException.class,
        "names type 'author'");
    fails(
        good().option("feature-encoding", "user=int8"),
        InvalidInputException.class,
        "type 'user'",
        "no features column");
    fails(
        Fanout.get(spark)
            .prepare(goodUsers(), follows())
            .option("add-reverse", "true")
            .output(out().toString()),
        FanoutConfigException.class,
        "add-reverse");
  }

  @Test
  void theGraphDescriptionIsChecked() {
    fails(
        Fanout.get(spark)
            .prepare()
            .vertices("user", goodUsers())
            .edges("bought", "user", "item", bought(1L, "x"))
            .output(out().toString()),
        InvalidInputException.class,
        "relation 'bought'",
        "unknown vertex type 'item'");
    fails(
        good()
            .edges("rev_bought", "item", "user", bought(1L, "x").select("dst", "src"))
            .option("add-reverse", "true"),
        InvalidInputException.class,
        "relation 'bought'",
        "'rev_bought'");
  }
}
