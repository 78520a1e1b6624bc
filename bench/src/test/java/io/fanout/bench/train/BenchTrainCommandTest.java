package io.fanout.bench.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code bench-train} on a tiny generated graph, including the verification measurement, which
 * writes the graph as a store and its batches as shards and reads them back through the readers.
 */
@Tag("slow")
class BenchTrainCommandTest {
  @Test
  void reportsStepsAndWhatVerifyingCosts() throws Exception {
    Result r =
        cli(
            "bench-train",
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
            "2",
            "--warmup",
            "1",
            "--verify-rounds",
            "1",
            "--batches-per-shard",
            "2",
            "--sgemm-size",
            "64");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out().strip());
    assertThat(j.get("verify_store_files").asInt()).isPositive();
    assertThat(j.get("verify_store_again_files_read").asInt()).isZero();
    assertThat(j.get("verify_shard_parts_per_epoch").asInt()).isPositive();
    assertThat(j.get("epoch_seconds_unverified").asDouble()).isPositive();
  }

  @Test
  void reuseReportsBothStepTimesAndWhatReuseAvoided() throws Exception {
    Result r =
        cli(
            "bench-train",
            "--num-vertices",
            "3000",
            "--num-edges",
            "30000",
            "--feature-dim",
            "8",
            "--hidden",
            "8",
            "--fanouts",
            "5,5",
            "--batch-size",
            "64",
            "--batches",
            "6",
            "--warmup",
            "1",
            "--reuse-hot",
            "0.2",
            "--staleness",
            "3",
            "--hot-by",
            "in-degree",
            "--reuse-rows",
            "outputs", // refreshed on the overlapped worker, whose time the charged figure adds
            "--reuse-rounds",
            "1");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out().strip());
    assertThat(j.get("hot_vertices").asInt()).isEqualTo(600);
    assertThat(j.get("seconds_per_step_plain").asDouble()).isPositive();
    assertThat(j.get("seconds_per_step_reuse").asDouble()).isPositive();
    assertThat(j.get("seconds_per_step_reuse_refresh_charged").asDouble())
        .isGreaterThan(j.get("seconds_per_step_reuse").asDouble());
    assertThat(j.get("speedup").asDouble()).isPositive();
    assertThat(j.get("seconds_per_epoch_reuse").asDouble())
        .isGreaterThanOrEqualTo(6 * j.get("seconds_per_step_reuse").asDouble());
    assertThat(j.get("speedup_epoch").asDouble())
        .isCloseTo(
            j.get("seconds_per_epoch_plain").asDouble()
                / j.get("seconds_per_epoch_reuse").asDouble(),
            org.assertj.core.data.Percentage.withPercentage(0.2));
    assertThat(j.get("reuse_refresh").asText()).isEqualTo("overlapped");
    assertThat(j.get("bottom_edges_avoided_fraction").asDouble()).isBetween(0.01, 1.0);
    assertThat(j.get("feature_rows_avoided_fraction").asDouble()).isBetween(0.01, 1.0);
    assertThat(j.get("refreshes").asInt()).isPositive();
    assertThat(j.get("max_embedding_age_steps").asInt()).isBetween(1, 3);
  }

  /** The CPU backend reads the cache's heap pages in place: the cache's counters are reported. */
  @Test
  void aFeatureCacheFractionReportsTheCachesCounters() throws Exception {
    Result r =
        cli(
            "bench-train",
            "--backend",
            "cpu",
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
            "3",
            "--warmup",
            "1",
            "--verify-rounds",
            "0",
            "--feature-access",
            "zero-copy",
            "--feature-cache-fraction",
            "0.1",
            "--sgemm-size",
            "64");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out().strip());
    assertThat(j.get("feature_cache").asText()).isEqualTo("belady");
    assertThat(j.get("feature_cache_rows").asInt()).isEqualTo(300);
    assertThat(j.get("feature_cache_misses").asLong()).isPositive();
    assertThat(j.get("feature_cache_rows_read").asLong())
        .isEqualTo(j.get("feature_cache_misses").asLong());
    Result gather =
        cli("bench-train", "--feature-access", "gather", "--feature-cache-fraction", "0.1");
    assertThat(gather.code()).isEqualTo(2);
    assertThat(gather.err()).contains("needs --feature-access zero-copy");
  }

  @Test
  void cudaWithoutADeviceIsAnInputError() {
    io.fanout.tensor.BackendProvider cuda = new io.fanout.tensor.cuda.CudaBackendProvider();
    org.junit.jupiter.api.Assumptions.assumeFalse(
        cuda.available(), "a CUDA device is visible here: bench-train --backend cuda would run");
    Result r =
        cli("bench-train", "--backend", "cuda", "--num-vertices", "100", "--num-edges", "500");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains("fanout bench-train: error: backend 'cuda' cannot run here: no CUDA device")
        .contains("--backend cpu")
        .doesNotContain("Exception");
  }

  @Test
  void runsOnTheNamedBackend() throws Exception {
    Result r =
        cli(
            "bench-train",
            "--backend",
            "cpu-checked",
            "--num-vertices",
            "2000",
            "--num-edges",
            "10000",
            "--feature-dim",
            "8",
            "--hidden",
            "8",
            "--batch-size",
            "64",
            "--batches",
            "1",
            "--warmup",
            "1",
            "--verify-rounds",
            "0",
            "--sgemm-size",
            "64");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out().strip());
    assertThat(j.get("backend").asText()).startsWith("cpu-checked");
    // the dense layers are set against the sgemm of the size asked for, named by it
    assertThat(j.has("sgemm_2048_gflops")).isFalse();
    assertThat(j.get("sgemm_64_gflops").asDouble()).isPositive();
    assertThat(j.get("dense_to_sgemm_ratio").asDouble())
        .isCloseTo(
            j.get("dense_gflops").asDouble() / j.get("sgemm_64_gflops").asDouble(),
            org.assertj.core.data.Percentage.withPercentage(0.2)); // 4 significant digits each
    Result none = cli("bench-train", "--sgemm-size", "0");
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.err()).contains("--sgemm-size must be at least 1, got 0");
  }
}
