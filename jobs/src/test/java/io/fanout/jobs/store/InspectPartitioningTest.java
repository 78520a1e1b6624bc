package io.fanout.jobs.store;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.cli.CliRun.Result;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code inspect}'s partitioning and the shuffle bytes of partitioned sampling. */
class InspectPartitioningTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("InspectPartitioningTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static Result prepare(String partitioner, Path out) {
    Path cora = SparkTestSession.dataset("cora");
    Result r =
        cli(
            "prepare",
            "--vertices",
            cora.resolve("vertices.parquet").toString(),
            "--edges",
            cora.resolve("edges.parquet").toString(),
            "--undirected",
            "true",
            "--dedupe",
            "true",
            "--self-loops",
            "drop",
            "--partitions",
            "4",
            "--partitioner",
            partitioner,
            "--output",
            out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    return r;
  }

  @Test
  void inspectReportsCutAndBalanceAndSamplingReportsShuffleBytes() {
    Path store = tmp.resolve("hash-store");
    prepare("hash", store);
    Result i = cli("inspect", store.toString(), "--no-checksums", "true");
    assertThat(i.code()).as(i.err()).isZero();
    JsonNode p = i.json().get("partitioning");
    long vertices = 0;
    long edges = 0;
    for (int q = 0; q < 4; q++) {
      vertices += p.get("vertices").get(q).asLong();
      edges += p.get("edges").get(q).asLong();
    }
    assertThat(vertices).isEqualTo(2708);
    assertThat(edges).isEqualTo(10556);
    assertThat(p.get("edge_cut").asDouble()).isBetween(0.7, 0.8);
    assertThat(p.get("cut_edges").asLong())
        .isEqualTo(Math.round(p.get("edge_cut").asDouble() * 10556));
    assertThat(p.get("vertex_imbalance").asDouble()).isBetween(1.0, 1.1);

    Result s =
        cli(
            "sample",
            "--graph",
            store.toString(),
            "--output",
            tmp.resolve("shards").toString(),
            "--mode",
            "partitioned",
            "--batch-size",
            "512",
            "--fanouts",
            "5,5",
            "--epochs",
            "2");
    assertThat(s.code()).as(s.err()).isZero();
    JsonNode sj = s.json();
    assertThat(sj.get("shuffle_bytes").asLong()).isPositive();
    assertThat(sj.get("shuffle_bytes_per_epoch").asLong())
        .isEqualTo(sj.get("shuffle_bytes").asLong() / 2);
  }
}
