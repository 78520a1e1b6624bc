package io.fanout.jobs.store;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
 * {@code prepare --graph-spec}, {@code inspect} and {@code quantize} of a typed store through the
 * command line (a relation weighted by its spec's {@code weight_column}, carried to its reverse):
 * counts per type and per relation, a type re-encoded on its own; {@code --undirected} adds the
 * reverse of a relation between two types; options not built for typed graphs fail with one line.
 */
class TypedStoreCommandsTest {
  static SparkSession spark;
  @TempDir static Path tmp;
  static Path spec;

  @BeforeAll
  static void start() throws Exception {
    spark = SparkTestSession.start("TypedStoreCommandsTest");
    StructType user =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("features", DataTypes.createArrayType(DataTypes.FloatType))
            .add("label", DataTypes.IntegerType)
            .add("split", DataTypes.StringType);
    StructType item = new StructType().add("sku", DataTypes.StringType);
    StructType bought =
        new StructType()
            .add("user", DataTypes.LongType)
            .add("item", DataTypes.StringType)
            .add("qty", DataTypes.DoubleType);
    spark
        .createDataFrame(
            List.of(
                RowFactory.create(1L, List.of(1f, 0f), 0, "train"),
                RowFactory.create(2L, List.of(0f, 1f), 1, "val"),
                RowFactory.create(3L, List.of(1f, 1f), 1, "test")),
            user)
        .write()
        .parquet(tmp.resolve("data/users").toString());
    spark
        .createDataFrame(List.of(RowFactory.create("x"), RowFactory.create("y")), item)
        .write()
        .parquet(tmp.resolve("data/items").toString());
    spark
        .createDataFrame(
            List.of(
                RowFactory.create(1L, "x", 2.0),
                RowFactory.create(2L, "x", 0.0),
                RowFactory.create(3L, "y", 1.5)),
            bought)
        .write()
        .parquet(tmp.resolve("data/bought").toString());
    spec = tmp.resolve("data/graph.json");
    Files.writeString(
        spec,
        """
        {"types": [{"name": "user", "path": "users"},
                   {"name": "item", "path": "items", "id_column": "sku"}],
         "relations": [{"name": "bought", "src_type": "user", "dst_type": "item",
                        "path": "bought", "src_column": "user", "dst_column": "item",
                        "weight_column": "qty"}]}
        """);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Tag("slow")
  @Test
  void prepareAndInspectPrintCountsPerTypeAndRelation() throws Exception {
    Path out = tmp.resolve("store");
    Result p =
        cli(
            "prepare",
            "--graph-spec",
            spec.toString(),
            "--add-reverse",
            "--output",
            out.toString());
    assertThat(p.code()).as(p.err()).isZero();
    assertThat(p.err()).contains("2 types, 2 relations");
    JsonNode prepared = new ObjectMapper().readTree(p.out());
    assertThat(prepared.get("types").get("item").asLong()).isEqualTo(2);
    assertThat(prepared.get("relations").get("rev_bought").asLong()).isEqualTo(3);

    Result i = cli("inspect", out.toString());
    assertThat(i.code()).as(i.err()).isZero();
    JsonNode s = new ObjectMapper().readTree(i.out());
    assertThat(s.get("typed").asBoolean()).isTrue();
    assertThat(s.get("vertices").asLong()).isEqualTo(5);
    assertThat(s.get("edges").asLong()).isEqualTo(6);
    JsonNode users = s.get("types").get(0);
    assertThat(users.get("name").asText()).isEqualTo("user");
    assertThat(users.get("classes").asInt()).isEqualTo(2);
    assertThat(users.get("feature_dim").asInt()).isEqualTo(2);
    assertThat(users.get("split_counts").get("train").asLong()).isEqualTo(1);
    assertThat(s.get("types").get(1).get("feature_dim").asInt()).isZero();
    assertThat(users.get("feature_layout").asText()).isEqualTo("identity");
    assertThat(s.get("types").get(1).has("feature_layout")).isFalse();
    JsonNode rev = s.get("relations").get(1);
    assertThat(rev.get("name").asText()).isEqualTo("rev_bought");
    assertThat(rev.get("src_type").asText()).isEqualTo("item");
    assertThat(rev.get("degree").get("max").asLong()).isEqualTo(1);
    assertThat(rev.get("reverse_of").asText()).isEqualTo("bought");
    for (JsonNode r : s.get("relations")) { // the reverse carries the weights
      assertThat(r.get("weighted").asBoolean()).isTrue();
      assertThat(r.get("weights").get("min").asDouble()).isZero();
      assertThat(r.get("weights").get("max").asDouble()).isEqualTo(2.0);
      assertThat(r.get("weights").get("zero").asLong()).isEqualTo(1);
    }
    assertThat(s.get("files_verified").asInt()).isPositive();

    Path quantized = tmp.resolve("store-int8");
    Result q =
        cli(
            "quantize",
            out.toString(),
            "--output",
            quantized.toString(),
            "--feature-encoding",
            "user=int8");
    assertThat(q.code()).as(q.err()).isZero();
    assertThat(q.err()).contains("(user=int8 features, 5 vertices)");
    JsonNode qi = new ObjectMapper().readTree(cli("inspect", quantized.toString()).out());
    assertThat(qi.get("types").get(0).get("feature_encoding").asText()).isEqualTo("int8");

    Path laidOut = tmp.resolve("store-int8-seed-groups");
    Result l =
        cli(
            "quantize",
            out.toString(),
            "--output",
            laidOut.toString(),
            "--feature-encoding",
            "user=int8",
            "--feature-layout",
            "seed-groups");
    assertThat(l.code()).as(l.err()).isZero();
    Result li = cli("inspect", laidOut.toString());
    assertThat(li.code()).as(li.err()).isZero();
    JsonNode lt = new ObjectMapper().readTree(li.out()).get("types");
    assertThat(lt.get(0).get("feature_layout").asText()).isEqualTo("seed-groups");
    assertThat(lt.get(1).has("feature_layout")).isFalse();
  }

  @Test
  void optionsNotBuiltForTypedGraphsFailWithOneLine() {
    Result r =
        cli(
            "prepare",
            "--graph-spec",
            spec.toString(),
            "--task",
            "link",
            "--output",
            tmp.resolve("u").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--task link").contains("--link-relation");
  }

  @Test
  void undirectedAddsTheReverseOfARelationBetweenTwoTypes() {
    Result r =
        cli(
            "prepare",
            "--graph-spec",
            spec.toString(),
            "--undirected",
            "--dry-run",
            "--output",
            tmp.resolve("u").toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out() + r.err()).contains("rev_bought").contains("(added reverse)");
  }
}
