package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun.Result;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An output path too long for the file system makes every command that writes one exit 2 with one
 * line naming the option and the path, before any work, instead of exit 1 with an I/O stack trace.
 */
class LongOutputPathTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path store;
  static Path shards;
  static Path model;
  static Path tooLong;

  @BeforeAll
  static void fixtures() throws Exception {
    spark = SparkTestSession.start("LongOutputPathTest");
    TrainFixtures.Graph g = TrainFixtures.graph(5, 120, 6);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, g);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, g, new int[] {3}, 32, 1, 1);
    model = tmp.resolve("model");
    Result t = cli(TrainFixtures.trainArgs(store, shards, model, "--epochs", "1"));
    assertThat(t.code()).as(t.err()).isZero();
    tooLong = tmp.resolve("x".repeat(300));
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static void refused(Result r, String command, String option) {
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err())
        .startsWith("fanout " + command + ": error: " + option + " " + tooLong + ": ")
        .contains("300 bytes long")
        .doesNotContain("\tat ");
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(tmp.resolve("x".repeat(10))).doesNotExist();
  }

  @Test
  void prepareOutput() {
    Path v = tmp.resolve("v.parquet");
    Path e = tmp.resolve("e.parquet");
    spark
        .createDataFrame(
            List.of(RowFactory.create(1L)), new StructType().add("id", DataTypes.LongType))
        .write()
        .parquet(v.toString());
    spark
        .createDataFrame(
            List.of(RowFactory.create(1L, 1L)),
            new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType))
        .write()
        .parquet(e.toString());
    refused(
        cli(
            "prepare",
            "--vertices",
            v.toString(),
            "--edges",
            e.toString(),
            "--output",
            tooLong.toString()),
        "prepare",
        "--output");
  }

  @Test
  void sampleOutput() {
    refused(
        cli(
            "sample",
            "--graph",
            store.toString(),
            "--output",
            tooLong.toString(),
            "--fanouts",
            "3"),
        "sample",
        "--output");
  }

  @Test
  void trainModelDir() {
    refused(cli(TrainFixtures.trainArgs(store, shards, tooLong)), "train", "--model-dir");
  }

  @Test
  void inferOutputAndEmbeddings() {
    refused(
        cli(
            "infer",
            "--graph",
            store.toString(),
            "--model-dir",
            model.toString(),
            "--output",
            tooLong.toString()),
        "infer",
        "--output");
    refused(
        cli(
            "infer",
            "--graph",
            store.toString(),
            "--model-dir",
            model.toString(),
            "--embeddings",
            tooLong.toString()),
        "infer",
        "--embeddings");
  }
}
