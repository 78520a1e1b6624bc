package io.fanout.jobs.store;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.cli.CliRun.Result;
import io.fanout.jobs.train.EndToEnd;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code prepare --feature-encoding}, {@code quantize} and {@code inspect} of encoded stores
 * through the command line, on the bundled cora.
 */
class QuantizeCommandTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("QuantizeCommandTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static Result prepare(Path out, String... more) {
    Path cora = EndToEnd.bundledDataset("cora");
    String[] base = {
      "prepare",
      "--vertices",
      cora.resolve("vertices.parquet").toString(),
      "--edges",
      cora.resolve("edges.parquet").toString(),
      "--output",
      out.toString()
    };
    String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return cli(all);
  }

  @Test
  void quantizeThenInspectReportsBytesPerRowAndCompression() throws Exception {
    Path f32 = tmp.resolve("cora");
    Result p = prepare(f32);
    assertThat(p.code()).as(p.err()).isZero();

    Path int4 = tmp.resolve("cora-int4");
    Result q =
        cli("quantize", f32.toString(), "--output", int4.toString(), "--feature-encoding", "int4");
    assertThat(q.code()).as(q.err()).isZero();
    assertThat(q.err()).contains("quantize: wrote").contains("int4 features");

    JsonNode i = cli("inspect", int4.toString()).json();
    assertThat(i.get("feature_encoding").asText()).isEqualTo("int4");
    assertThat(i.get("feature_bytes_per_row").asInt()).isEqualTo(717); // 1433 columns, 2 a byte
    assertThat(i.get("feature_compression").asDouble()).isEqualTo(7.99);
    assertThat(i.get("files_verified").asInt()).isPositive();
    // cora's features are 0/1: int4 decodes them within half a step (1/30), most rows exactly
    JsonNode c = cli("inspect", int4.toString(), "--compare", f32.toString()).json().get("compare");
    assertThat(c.get("max_abs_error").asDouble()).isLessThanOrEqualTo(1.0 / 30);
    assertThat(c.get("exact_rows").asLong()).isPositive();
    JsonNode f = cli("inspect", f32.toString()).json();
    assertThat(f.get("feature_bytes_per_row").asInt()).isEqualTo(4 * 1433);
    assertThat(f.get("feature_compression").asDouble()).isEqualTo(1.0);

    // f16 rows from an int4 store: refused, pointing at the store's own encoding
    Result inline =
        cli(
            "sample",
            "--graph",
            int4.toString(),
            "--output",
            tmp.resolve("shards").toString(),
            "--features",
            "f16");
    assertThat(inline.code()).isEqualTo(2);
    assertThat(inline.err())
        .contains("keeps int4 features")
        .contains("use --features int4")
        .contains("sample without --features");

    // a damaged parameters file: one line naming it, exit 2, also with --no-checksums
    Path params = StoreManifest.read(int4).dataRoot(int4).resolve(StoreLayout.FEATURE_PARAMS);
    byte[] b = Files.readAllBytes(params);
    b[100] ^= 0x01;
    Files.write(params, b);
    Result bad = cli("inspect", int4.toString(), "--no-checksums");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err())
        .contains(params.toString())
        .contains("damaged feature parameters: CRC32C")
        .doesNotContain("Exception");
  }

  @Test
  void badEncodingsAndLayoutsExitWithStatus2() {
    Result p = prepare(tmp.resolve("bad"), "--feature-encoding", "int2");
    assertThat(p.code()).isEqualTo(2);
    assertThat(p.err()).contains("feature-encoding").contains("f32|f16|int8|int4|pq");
    assertThat(p.err().strip().lines()).hasSize(1);

    Result q =
        cli(
            "quantize",
            tmp.toString(),
            "--output",
            tmp.resolve("x").toString(),
            "--feature-encoding",
            "float8");
    assertThat(q.code()).isEqualTo(2);
    assertThat(q.err()).contains("feature-encoding").contains("f32|f16|int8|int4|pq");

    Result layout = prepare(tmp.resolve("bad-layout"), "--feature-layout", "degree");
    assertThat(layout.code()).isEqualTo(2);
    assertThat(layout.err())
        .contains("feature-layout")
        .contains("identity|neighborhood|seed-groups");
    assertThat(layout.err().strip().lines()).hasSize(1);

    Result none = cli("quantize", "--output", tmp.resolve("y").toString());
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.err()).contains("one STORE directory");
  }
}
