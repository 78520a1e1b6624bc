package io.fanout.jobs.store;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.cli.CliRun.Result;
import io.fanout.cli.FanoutCli;
import io.fanout.store.StoreLayout;
import io.fanout.testing.SparkTestSession;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code generate}, {@code prepare} and {@code inspect} through {@link FanoutCli}. */
class StoreCommandsTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("StoreCommandsTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void generatePrepareInspect() throws Exception {
    Path in = tmp.resolve("gen");
    Result g =
        cli(
            "generate",
            "--output",
            in.toString(),
            "--num-vertices",
            "3000",
            "--num-edges",
            "20000",
            "--feature-dim",
            "5",
            "--classes",
            "4",
            "--seed",
            "7",
            "--tasks",
            "3");
    assertThat(g.code()).as(g.err()).isZero();
    List<Row> v = spark.read().parquet(in.resolve("vertices.parquet").toString()).collectAsList();
    assertThat(v).hasSize(3000);
    assertThat(spark.read().parquet(in.resolve("edges.parquet").toString()).count())
        .isEqualTo(20000);
    assertThat(
            spark.read().parquet(in.resolve("vertices.parquet").toString()).schema().simpleString())
        .isEqualTo("struct<id:bigint,label:int,split:string,features:array<float>>");

    // deterministic per seed, whatever the number of tasks
    Path again = tmp.resolve("gen2");
    assertThat(
            cli(
                    "generate",
                    "--output",
                    again.toString(),
                    "--num-vertices",
                    "3000",
                    "--num-edges",
                    "20000",
                    "--feature-dim",
                    "5",
                    "--classes",
                    "4",
                    "--seed",
                    "7",
                    "--tasks",
                    "2")
                .code())
        .isZero();
    assertThat(
            spark
                .read()
                .parquet(again.resolve("edges.parquet").toString())
                .exceptAll(spark.read().parquet(in.resolve("edges.parquet").toString()))
                .count())
        .isZero();
    assertThat(
            spark
                .read()
                .parquet(again.resolve("vertices.parquet").toString())
                .exceptAll(spark.read().parquet(in.resolve("vertices.parquet").toString()))
                .count())
        .isZero();
    // a refused overwrite
    Result refused = cli("generate", "--output", in.toString());
    assertThat(refused.code()).isEqualTo(2);
    assertThat(refused.err()).contains("--overwrite");

    Path store = tmp.resolve("store");
    // --dry-run: the plan as JSON on stdout, readable on stderr, nothing written
    Result dry =
        cli(
            "prepare",
            "--vertices",
            in.resolve("vertices.parquet").toString(),
            "--edges",
            in.resolve("edges.parquet").toString(),
            "--output",
            store.toString(),
            "--partitions",
            "3",
            "--dry-run");
    assertThat(dry.code()).as(dry.err()).isZero();
    JsonNode dj = dry.json();
    assertThat(dj.get("dry_run").asBoolean()).isTrue();
    assertThat(dj.get("inputs").get("vertices").asLong()).isEqualTo(3000);
    assertThat(dj.get("inputs").get("source").asText()).isEqualTo("parquet footers");
    assertThat(dj.get("partition_table")).hasSize(3);
    assertThat(dj.get("store_bytes").asLong()).isPositive();
    assertThat(dry.err()).contains("prepare plan (from parquet footers)").contains("disk:");
    assertThat(store).doesNotExist();

    Result p =
        cli(
            "prepare",
            "--vertices",
            in.resolve("vertices.parquet").toString(),
            "--edges",
            in.resolve("edges.parquet").toString(),
            "--output",
            store.toString(),
            "--undirected",
            "--dedupe",
            "--self-loops",
            "drop",
            "--partitions",
            "3");
    assertThat(p.code()).as(p.err()).isZero();
    JsonNode pj = p.json();
    assertThat(pj.get("vertices").asLong()).isEqualTo(3000);
    assertThat(pj.get("skipped").asBoolean()).isFalse();

    Result i = cli("inspect", store.toString());
    assertThat(i.code()).as(i.err()).isZero();
    JsonNode ij = i.json();
    assertThat(ij.get("vertices").asLong()).isEqualTo(3000);
    assertThat(ij.get("edges").asLong()).isEqualTo(pj.get("edges").asLong());
    assertThat(ij.get("partitions").asInt()).isEqualTo(3);
    assertThat(ij.get("feature_dim").asInt()).isEqualTo(5);
    assertThat(ij.get("classes").asInt()).isEqualTo(4);
    long splits = 0;
    for (String s : new String[] {"train", "val", "test", "none"}) {
      splits += ij.get("split_counts").get(s).asLong();
    }
    assertThat(splits).isEqualTo(3000);
    assertThat(ij.get("split_counts").get("train").asLong()).isBetween(1600L, 2000L);
    assertThat(ij.get("degree").get("max").asLong())
        .isGreaterThan(ij.get("degree").get("min").asLong());
    // the 5% most-named vertices hold at least 5% of the neighbor entries
    assertThat(ij.get("degree").get("hot_5pct_neighbor_share").asDouble()).isBetween(0.05, 1.0);
    assertThat(ij.get("files_verified").asInt()).isGreaterThanOrEqualTo(9);
    // homophily: most edges stay inside a community (label)
    List<Row> same =
        spark
            .sql(
                "SELECT avg(CASE WHEN s.label = d.label THEN 1.0 ELSE 0.0 END) FROM parquet.`"
                    + in.resolve("edges.parquet")
                    + "` e JOIN parquet.`"
                    + in.resolve("vertices.parquet")
                    + "` s ON e.src = s.id JOIN parquet.`"
                    + in.resolve("vertices.parquet")
                    + "` d ON e.dst = d.id")
            .collectAsList();
    assertThat(same.get(0).getDecimal(0).doubleValue()).isGreaterThan(0.7);

    // rerun: skipped
    Result p2 =
        cli(
            "prepare",
            "--vertices",
            in.resolve("vertices.parquet").toString(),
            "--edges",
            in.resolve("edges.parquet").toString(),
            "--output",
            store.toString(),
            "--undirected",
            "--dedupe",
            "--self-loops",
            "drop",
            "--partitions",
            "3");
    assertThat(p2.code()).as(p2.err()).isZero();
    assertThat(p2.json().get("skipped").asBoolean()).isTrue();

    // corrupted and truncated files are named
    Path csr =
        io.fanout.store.StoreManifest.read(store).dataRoot(store).resolve(StoreLayout.csrFile(1));
    byte[] bytes = Files.readAllBytes(csr);
    bytes[bytes.length - 2] ^= 0x55;
    Files.write(csr, bytes);
    Result bad = cli("inspect", store.toString());
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("part-00001.csr").contains("CRC32C");
    try (RandomAccessFile raf = new RandomAccessFile(csr.toFile(), "rw")) {
      raf.setLength(bytes.length - 8);
    }
    Result trunc = cli("inspect", store.toString());
    assertThat(trunc.code()).isEqualTo(2);
    assertThat(trunc.err()).contains("part-00001.csr").contains("truncated");
    Files.delete(store.resolve(StoreLayout.MANIFEST));
    Result incomplete = cli("inspect", store.toString());
    assertThat(incomplete.code()).isEqualTo(2);
    assertThat(incomplete.err()).contains("incomplete store");
  }

  @Test
  void prepareErrorsExitWithStatus2() {
    Result r =
        cli(
            "prepare",
            "--vertices",
            tmp.resolve("none").toString(),
            "--edges",
            "x",
            "--output",
            tmp.resolve("o").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("does not exist");
    Result missing = cli("prepare", "--vertices", "a", "--edges", "b");
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err()).contains("output");
  }
}
