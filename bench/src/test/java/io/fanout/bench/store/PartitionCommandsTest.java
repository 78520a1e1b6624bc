package io.fanout.bench.store;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.cli.CliRun.Result;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench-partition} and {@code bench-prepare}. */
@Tag("slow")
class PartitionCommandsTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PartitionCommandsTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void benchPartitionComparesEveryPartitionerAtEachK() {
    Result r =
        cli(
            "bench-partition",
            "--dataset",
            SparkTestSession.dataset("cora").toString(),
            "--parts",
            "4",
            "--shuffle-parts",
            "4",
            "--work-dir",
            tmp.resolve("bench").toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = r.json();
    // partitioned sampling of a 4-part store per partitioner: with batches of one partition's
    // seeds, the multilevel store keeps most of a batch's frontier at home and shuffles less
    Map<String, JsonNode> shuffle = new HashMap<>();
    for (JsonNode x : j.get("shuffle")) {
      assertThat(x.get("k").asInt()).isEqualTo(4);
      assertThat(x.get("store_edges").asLong()).isEqualTo(10556);
      shuffle.put(x.get("partitioner").asText(), x);
    }
    assertThat(j.get("shuffle_sample").get("mode").asText()).isEqualTo("partitioned");
    long hashByPart =
        shuffle.get("hash").get("shuffle_bytes_per_epoch_batch_by_partition").asLong();
    JsonNode mlShuffle = shuffle.get("multilevel");
    long mlByPart = mlShuffle.get("shuffle_bytes_per_epoch_batch_by_partition").asLong();
    assertThat(mlByPart).isPositive().isLessThan(hashByPart);
    assertThat(mlByPart).isLessThan(mlShuffle.get("shuffle_bytes_per_epoch").asLong());
    assertThat(j.get("vertices").asInt()).isEqualTo(2708);
    assertThat(j.get("undirected_edges").asInt()).isEqualTo(5278);
    Map<String, JsonNode> byName = new HashMap<>();
    for (JsonNode x : j.get("results")) {
      assertThat(x.get("k").asInt()).isEqualTo(4);
      byName.put(x.get("partitioner").asText(), x);
    }
    assertThat(byName).containsKeys("hash", "range", "multilevel");
    assertThat(byName.containsKey("gpmetis")).isEqualTo(j.get("gpmetis").asBoolean());
    JsonNode ml = byName.get("multilevel");
    assertThat(ml.get("vertex_imbalance").asDouble()).isLessThanOrEqualTo(1.05);
    // hash cuts about 3/4 of the edges at 4 parts; gpmetis 0.061
    assertThat(ml.get("edge_cut").asDouble()).isLessThan(0.1);
    assertThat(byName.get("hash").get("edge_cut").asDouble()).isGreaterThan(0.7);
  }

  @Test
  void benchPrepareComparesBothEdgeSortsAgainstOneScan() {
    Result r =
        cli(
            "bench-prepare",
            "--num-vertices",
            "3000",
            "--num-edges",
            "30000",
            "--partitions",
            "3",
            "--edge-sort",
            "both",
            "--work-dir",
            tmp.resolve("bench-prepare").toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = r.json();
    assertThat(j.get("edge_sort").asText()).isEqualTo("task");
    assertThat(j.get("same_store_bytes").asBoolean()).isTrue();
    assertThat(j.get("store_edges").asLong()).isPositive();
    assertThat(j.get("prepare_sql_over_scan").asDouble()).isPositive();
    assertThat(j.get("prepare_over_scan").asDouble()).isPositive();
    assertThat(j.get("prepare_cpu_s").asDouble()).isPositive();
    assertThat(j.get("warm_scan_cpu_s").asDouble()).isPositive();
    assertThat(j.get("prepare_over_compiled_scan").asDouble())
        .isCloseTo(
            j.get("prepare_s").asDouble() / j.get("compiled_scan_s").asDouble(),
            org.assertj.core.api.Assertions.withinPercentage(1));
    assertThat(tmp.resolve("bench-prepare")).doesNotExist();
  }

  @Test
  void benchPrepareTakesGivenTablesAndLeavesThemInPlace() throws Exception {
    Path input = tmp.resolve("given-input");
    Result g =
        cli(
            "generate",
            "--output",
            input.toString(),
            "--num-vertices",
            "2000",
            "--num-edges",
            "15000",
            "--feature-dim",
            "4");
    assertThat(g.code()).as(g.err()).isZero();
    Path work = tmp.resolve("bench-given");
    Result r =
        cli(
            "bench-prepare",
            "--input",
            input.toString(),
            "--partitions",
            "2",
            "--work-dir",
            work.toString(),
            "--keep",
            "true");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = r.json();
    assertThat(j.has("generate_s")).isFalse();
    assertThat(j.get("input").asText()).isEqualTo(input.toAbsolutePath().toString());
    assertThat(j.get("vertices").asLong()).isEqualTo(2000);
    assertThat(j.get("edge_rows").asLong()).isEqualTo(15000);
    assertThat(j.get("feature_dim").asInt()).isEqualTo(4);
    assertThat(j.get("prepare_shuffle_bytes").asLong()).isPositive();
    long storeBytes;
    try (var files = java.nio.file.Files.walk(work.resolve("store"))) {
      storeBytes =
          files
              .filter(java.nio.file.Files::isRegularFile)
              .filter(f -> !f.getFileName().toString().equals("manifest.json"))
              .mapToLong(f -> f.toFile().length())
              .sum();
    }
    assertThat(j.get("store_bytes").asLong()).isEqualTo(storeBytes);
    assertThat(j.get("store_bytes_per_edge").asDouble())
        .isCloseTo(
            (double) storeBytes / j.get("store_edges").asLong(),
            org.assertj.core.api.Assertions.within(0.001));
    assertThat(input.resolve("vertices.parquet")).exists();
    assertThat(input.resolve("edges.parquet")).exists();

    Result missing =
        cli("bench-prepare", "--input", tmp.resolve("no-such").toString(), "--work-dir", "w");
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err()).contains("no-such").contains("vertices.parquet");
    Result overlap =
        cli("bench-prepare", "--input", input.toString(), "--work-dir", input.toString());
    assertThat(overlap.code()).isEqualTo(2);
    assertThat(overlap.err()).contains("--work-dir").contains("is the input --input");
    assertThat(input.resolve("edges.parquet")).exists();
  }

  @Test
  void badOptionsExitWithStatus2() throws Exception {
    Result neither = cli("bench-partition");
    assertThat(neither.code()).isEqualTo(2);
    assertThat(neither.err()).contains("either one STORE or --dataset DIR");
    Result parts = cli("bench-partition", "--dataset", tmp.toString(), "--parts", "2,zero");
    assertThat(parts.code()).isEqualTo(2);
    assertThat(parts.err()).contains("--parts: expected comma-separated part counts >= 1");
    Result noData = cli("bench-partition", "--dataset", tmp.resolve("nothing").toString());
    assertThat(noData.code()).isEqualTo(2);
    assertThat(noData.err()).contains("expected vertices.parquet and edges.parquet");
    Path typed = tmp.resolve("typed-dataset");
    java.nio.file.Files.createDirectories(typed);
    java.nio.file.Files.writeString(
        typed.resolve("schema.json"), "{\"node_types\": [], \"relations\": []}");
    Result typedAlone = cli("bench-partition", "--dataset", typed.toString());
    assertThat(typedAlone.code()).isEqualTo(2);
    assertThat(typedAlone.err()).contains("typed dataset").contains("give --shuffle-parts");
    Result typedParts =
        cli(
            "bench-partition",
            "--dataset",
            typed.toString(),
            "--parts",
            "2",
            "--shuffle-parts",
            "4");
    assertThat(typedParts.code()).isEqualTo(2);
    assertThat(typedParts.err()).contains("'parts'").contains("only the stores of --shuffle-parts");
    Result shuffleOfStore = cli("bench-partition", tmp.toString(), "--shuffle-parts", "2");
    assertThat(shuffleOfStore.code()).isEqualTo(2);
    assertThat(shuffleOfStore.err()).contains("--shuffle-parts").contains("give --dataset DIR");
    Result coarse =
        cli(
            "prepare",
            "--vertices",
            "v",
            "--edges",
            "e",
            "--output",
            tmp.resolve("o").toString(),
            "--partitioner",
            "multilevel",
            "--partition-coarse-vertices",
            "0");
    assertThat(coarse.code()).isEqualTo(2);
    assertThat(coarse.err()).contains("--partition-coarse-vertices must be >= 1, got 0");
  }
}
