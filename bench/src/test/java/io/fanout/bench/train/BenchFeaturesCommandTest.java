package io.fanout.bench.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import org.junit.jupiter.api.Test;

/** {@code bench-features} on a tiny generated graph: one JSON object with every policy and size. */
class BenchFeaturesCommandTest {
  @Test
  void reportsReadsOfEveryPolicyAtEverySize() throws Exception {
    Result r =
        cli(
            "bench-features",
            "--num-vertices",
            "3000",
            "--num-edges",
            "30000",
            "--feature-dim",
            "8",
            "--hidden",
            "8",
            "--batch-size",
            "64",
            "--batches",
            "12");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out().strip());
    assertThat(j.get("feature_bytes").asLong()).isEqualTo(3000L * 8 * 4);
    assertThat(j.get("epoch_batches").asInt()).isEqualTo(12);
    long none = j.get("none_rows_read").asLong();
    assertThat(none).isPositive().isEqualTo(j.get("none_misses").asLong());
    assertThat(j.get("epoch_row_accesses").asLong()).isEqualTo(none);
    assertThat(j.get("none_bytes_read").asLong()).isEqualTo(none * 8 * 4);
    for (String pct : new String[] {"1pct", "5pct", "20pct"}) {
      long belady = j.get("belady_" + pct + "_rows_read").asLong();
      long lru = j.get("lru_" + pct + "_rows_read").asLong();
      assertThat(belady).as(pct).isLessThanOrEqualTo(lru).isLessThanOrEqualTo(none);
      assertThat(belady + j.get("belady_" + pct + "_hits").asLong()).isEqualTo(none);
      // the whole-epoch optimum bounds the windowed policies from below
      long optimum = j.get("offline_min_" + pct + "_rows_read").asLong();
      assertThat(optimum).as(pct).isPositive().isLessThanOrEqualTo(belady);
      assertThat(j.get("belady_over_offline_min_rows_read_" + pct).asDouble())
          .isEqualTo((double) belady / optimum);
      // and what the cache's size alone forces bounds the optimum from below
      long bound = j.get("capacity_bound_" + pct + "_rows_read").asLong();
      long capacity = j.get("cache_" + pct + "_bytes").asLong() / (8 * 4);
      assertThat(bound)
          .as(pct)
          .isLessThanOrEqualTo(optimum)
          .isGreaterThanOrEqualTo(none - 11 * capacity);
      assertThat(j.get("lru_over_capacity_bound_rows_read_" + pct).asDouble())
          .isCloseTo((double) lru / bound, within(0.0005));
      assertThat(j.get("lru_" + pct + "_epoch_seconds").asDouble()).isPositive();
      assertThat(j.has("belady_" + pct + "_data_wait_fraction")).isTrue();
    }
  }

  @Test
  void int8StoreReadWithDirectIoReportsTheChosenRunsOnly() throws Exception {
    Result r =
        cli(
            "bench-features",
            "--num-vertices",
            "3000",
            "--num-edges",
            "30000",
            "--feature-dim",
            "8",
            "--hidden",
            "8",
            "--batch-size",
            "64",
            "--batches",
            "6",
            "--encoding",
            "int8",
            "--direct-io",
            "true",
            "--runs",
            "none,belady",
            "--cache-fractions",
            "0.05,0.005",
            "--warmup-epoch",
            "false");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out().strip());
    assertThat(j.get("encoding").asText()).isEqualTo("int8");
    assertThat(j.get("feature_row_bytes").asLong()).isEqualTo(8);
    assertThat(j.get("feature_bytes").asLong()).isEqualTo(3000L * 8);
    assertThat(j.get("cache_5pct_bytes").asLong()).isEqualTo(1200);
    assertThat(j.get("cache_0.5pct_bytes").asLong()).isEqualTo(120);
    assertThat(j.has("mapped_epoch_seconds")).isFalse();
    assertThat(j.has("lru_5pct_rows_read")).isFalse();
    long none = j.get("none_rows_read").asLong();
    assertThat(j.get("none_bytes_read").asLong()).isEqualTo(none * 8);
    assertThat(j.get("none_bytes_transferred").asLong())
        .isGreaterThanOrEqualTo(j.get("none_bytes_read").asLong());
    for (String pct : new String[] {"5pct", "0.5pct"}) {
      long belady = j.get("belady_" + pct + "_rows_read").asLong();
      assertThat(belady + j.get("belady_" + pct + "_hits").asLong()).isEqualTo(none);
      assertThat(j.get("offline_min_" + pct + "_rows_read").asLong()).isLessThanOrEqualTo(belady);
    }
    assertThat(j.get("process_peak_rss_bytes").asLong()).isPositive();
    // each long phase announced on stderr as it starts
    assertThat(r.err())
        .contains("bench-features: writing the store (int8)")
        .contains("bench-features: training one epoch: belady_0.5pct");
  }

  @Test
  void badRunsAndFractionsExit2() {
    Result runs = cli("bench-features", "--num-vertices", "100", "--runs", "none,fifo");
    assertThat(runs.code()).isEqualTo(2);
    assertThat(runs.err()).contains("fifo");
    Result fr = cli("bench-features", "--num-vertices", "100", "--cache-fractions", "0.05,x");
    assertThat(fr.code()).isEqualTo(2);
    assertThat(fr.err()).contains("--cache-fractions");
    Result enc = cli("bench-features", "--num-vertices", "100", "--encoding", "int2");
    assertThat(enc.code()).isEqualTo(2);
    Result keep = cli("bench-features", "--num-vertices", "100", "--write-only", "true");
    assertThat(keep.code()).isEqualTo(2);
    assertThat(keep.err()).contains("--work-dir");
  }
}
