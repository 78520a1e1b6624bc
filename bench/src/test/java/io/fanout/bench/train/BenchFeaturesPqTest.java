package io.fanout.bench.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import io.fanout.graph.GraphStore;
import io.fanout.store.StoreLayout;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench-features --encoding pq} and its kept work folder: the generated pq store is the one
 * {@code quantize} makes of the generated f32 store, and a later run reuses what an earlier one
 * kept, or refuses a folder written with other settings.
 */
@Tag("slow")
class BenchFeaturesPqTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("BenchFeaturesPqTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static Result bench(Path workdir, String encoding, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "bench-features",
                "--num-vertices",
                "3000",
                "--num-edges",
                "30000",
                "--feature-dim",
                "16",
                "--hidden",
                "8",
                "--batch-size",
                "64",
                "--batches",
                "4",
                "--encoding",
                encoding,
                "--pq-sample-rows",
                "600",
                "--work-dir",
                workdir.toString()));
    args.addAll(List.of(more));
    return cli(args);
  }

  private static JsonNode json(Result r) throws Exception {
    assertThat(r.code()).as(r.err()).isZero();
    return new ObjectMapper().readTree(r.out().strip());
  }

  @Test
  void pqStoreIsWhatQuantizeMakesOfTheF32Store() throws Exception {
    Path pq = tmp.resolve("pq");
    JsonNode j = json(bench(pq, "pq", "--write-only", "true"));
    assertThat(j.get("reused").asBoolean()).isFalse();
    assertThat(j.get("feature_row_bytes").asLong()).isEqualTo(2); // 16 columns, groups of 8
    assertThat(j.get("compression_vs_f32").asDouble()).isEqualTo(32.0);
    assertThat(j.has("none_rows_read")).isFalse();
    assertThat(j.get("codebook_seconds").asDouble()).isPositive();

    Path f32 = tmp.resolve("f32");
    json(bench(f32, "f32", "--write-only", "true"));
    Path quantized = tmp.resolve("quantized");
    Result q =
        cli(
            "quantize",
            f32.resolve("store").toString(),
            "--output",
            quantized.toString(),
            "--feature-encoding",
            "pq",
            "--pq-sample-rows",
            "600");
    assertThat(q.code()).as(q.err()).isZero();
    try (GraphStore generated = GraphStore.open(pq.resolve("store"));
        GraphStore ref = GraphStore.open(quantized)) {
      assertThat(generated.manifest().featureEncoding).isEqualTo("pq");
      for (String file : List.of(StoreLayout.FEATURE_PARAMS, StoreLayout.featuresFile(0))) {
        Path mine = generated.dataRoot().resolve(file);
        assertThat(Files.size(mine)).as(file).isPositive();
        assertThat(Files.mismatch(mine, ref.dataRoot().resolve(file))).as(file).isEqualTo(-1L);
      }
    }
  }

  @Test
  void aKeptFolderIsReusedWithTheSameSettingsAndRefusedWithOthers() throws Exception {
    Path dir = tmp.resolve("kept");
    JsonNode first = json(bench(dir, "int8", "--write-only", "true"));
    assertThat(first.get("reused").asBoolean()).isFalse();
    assertThat(first.has("store_seconds")).isTrue();

    Result other = bench(dir, "int4", "--runs", "none", "--warmup-epoch", "false");
    assertThat(other.code()).isEqualTo(2);
    assertThat(other.err()).contains("encoding int8, not int4").contains("--work-dir");

    JsonNode again =
        json(bench(dir, "int8", "--runs", "none", "--warmup-epoch", "false", "--keep", "true"));
    assertThat(again.get("reused").asBoolean()).isTrue();
    assertThat(again.has("store_seconds")).isFalse();
    assertThat(again.get("edges").asLong()).isEqualTo(first.get("edges").asLong());
    assertThat(again.get("none_rows_read").asLong()).isPositive();
    assertThat(Files.exists(dir.resolve("runs"))).isFalse();

    // without --keep, the run removes what it used
    json(bench(dir, "int8", "--runs", "none", "--warmup-epoch", "false"));
    assertThat(dir.resolve("store")).doesNotExist();
    assertThat(dir.resolve("shards")).doesNotExist();
    assertThat(dir.resolve("bench-features.properties")).doesNotExist();
  }
}
