package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import org.junit.jupiter.api.Test;

/**
 * {@code bench-train} on a tiny generated graph, including the verification measurement, which
 * writes the graph as a store and its batches as shards and reads them back through the readers.
 */
class BenchTrainCommandTest {
  @Test
  void reportsStepsAndWhatVerifyingCosts() throws Exception {
    Result r =
        cli(
            "bench-train",
            "--vertices",
            "3000",
            "--edges",
            "30000",
            "--features",
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
            "2");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out().strip());
    assertThat(j.get("verify_store_files").asInt()).isPositive();
    assertThat(j.get("verify_store_again_files_read").asInt()).isZero();
    assertThat(j.get("verify_shard_parts_per_epoch").asInt()).isPositive();
    assertThat(j.get("epoch_seconds_unverified").asDouble()).isPositive();
  }
}
