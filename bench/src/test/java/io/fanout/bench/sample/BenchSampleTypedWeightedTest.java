package io.fanout.bench.sample;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.cli.CliRun.Result;
import io.fanout.spark.Fanout;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
 * {@code bench-sample --weighted} on a typed store times the typed sampler drawing the store's
 * weighted relation by weight next to the uniform one, and reports its edges per second; a typed
 * store without weights is refused with one line.
 */
@Tag("slow")
class BenchSampleTypedWeightedTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("BenchSampleTypedWeightedTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Users (labelled) and items; bought (user to item) weighted, its added reverse too. */
  static Path store(String name, boolean weighted) {
    Random r = new Random(3);
    List<Row> users = new ArrayList<>();
    for (long u = 0; u < 200; u++) {
      users.add(RowFactory.create(u, (int) (u % 3), u % 2 == 0 ? "train" : "val"));
    }
    List<Row> items = new ArrayList<>();
    for (long i = 0; i < 100; i++) {
      items.add(RowFactory.create(i));
    }
    List<Row> bought = new ArrayList<>();
    for (int k = 0; k < 1500; k++) {
      bought.add(RowFactory.create((long) r.nextInt(200), (long) r.nextInt(100), r.nextFloat()));
    }
    Path out = tmp.resolve(name);
    var a =
        Fanout.get(spark)
            .prepare()
            .vertices(
                "user",
                spark.createDataFrame(
                    users,
                    new StructType()
                        .add("id", DataTypes.LongType)
                        .add("label", DataTypes.IntegerType)
                        .add("split", DataTypes.StringType)))
            .vertices(
                "item",
                spark.createDataFrame(items, new StructType().add("id", DataTypes.LongType)))
            .edges(
                "bought",
                "user",
                "item",
                spark.createDataFrame(
                    bought,
                    new StructType()
                        .add("src", DataTypes.LongType)
                        .add("dst", DataTypes.LongType)
                        .add("w", DataTypes.FloatType)))
            .option("add-reverse", "true")
            .output(out.toString());
    if (weighted) {
      a = a.option("weight-column", "w");
    }
    a.execute();
    return out;
  }

  static Result bench(Path store) {
    return cli(
        "bench-sample",
        "--graph",
        store.toString(),
        "--weighted",
        "true",
        "--fanouts",
        "5,3",
        "--batch-size",
        "32",
        "--batches",
        "4",
        "--repeat",
        "1",
        "--shard-batches",
        "2");
  }

  @Test
  void timesTheWeightedTypedSamplerAndReportsItsEdgesPerSecond() {
    Result r = bench(store("weighted", true));
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode out = r.json();
    assertThat(out.get("weighted").asBoolean()).isTrue();
    assertThat(out.get("sampling")).hasSize(2);
    for (JsonNode row : out.get("sampling")) {
      // every sampled user draws up to 5 items by weight, each item up to 3 users
      assertThat(row.get("typed_weighted_sampled_edges").asLong()).isPositive();
      assertThat(row.get("typed_weighted_sampled_edges_per_s").asDouble()).isPositive();
      assertThat(row.get("typed_weighted_ratio_to_uniform").asDouble()).isPositive();
      assertThat(row.has("weighted_sampled_edges")).isFalse(); // the one-type merge is unweighted
    }
  }

  @Test
  void aTypedStoreWithoutWeightsIsRefused() {
    Result r = bench(store("unweighted", false));
    assertThat(r.code()).isNotZero();
    assertThat(r.err())
        .contains("--weighted: the typed store")
        .contains("has no weighted relation");
  }
}
