package io.fanout.bench.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench-out-of-core} on a tiny graph: every layout and merging serves the same rows, the
 * disk's rates and the cache's shares of them are reported, and the feature files are removed.
 */
class BenchOutOfCoreCommandTest {
  @TempDir Path tmp;

  @Test
  void servesTheSameRowsWithEveryLayoutAndMergingAndReportsTheDisksRates() throws Exception {
    Result r =
        cli(
            "bench-out-of-core",
            "--num-vertices",
            "20000",
            "--num-edges",
            "100000",
            "--feature-dim",
            "33",
            "--fanouts",
            "5,5",
            "--batch-size",
            "64",
            "--batches",
            "30",
            "--probe-seconds",
            "0.1",
            "--work-dir",
            tmp.toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out().strip());
    assertThat(j.get("rows_identical_across_runs").asBoolean()).isTrue();
    assertThat(j.get("disk_sequential_1m_bytes_per_second").asDouble()).isPositive();
    assertThat(j.get("disk_random_4096_bytes_per_second").asDouble()).isPositive();
    long misses = -1;
    for (String layout : new String[] {"identity", "first-use", "first-use-prior"}) {
      for (String c : new String[] {"row", "merged"}) {
        String k = layout + "_" + c;
        assertThat(j.get(k + "_useful_bytes").asLong())
            .isEqualTo(j.get(k + "_misses").asLong() * 33 * 4);
        assertThat(j.get(k + "_useful_over_random_same_size").asDouble()).as(k).isPositive();
        // the cache's decisions do not depend on where rows lie or how they are read
        misses = misses < 0 ? j.get(k + "_misses").asLong() : misses;
        assertThat(j.get(k + "_misses").asLong()).as(k).isEqualTo(misses);
      }
    }
    // rows first used together lie side by side: merged reads carry more of them
    assertThat(j.get("first-use_merged_read_calls").asLong())
        .isLessThan(j.get("identity_merged_read_calls").asLong());
    assertThat(j.get("identity_row_read_calls").asLong()).isGreaterThanOrEqualTo(misses / 2);
    try (var files = Files.list(tmp)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void theStoresLayoutsGroupTheRowsOfAGraphWithCommunities() throws Exception {
    Result r =
        cli(
            "bench-out-of-core",
            "--num-vertices",
            "5000",
            "--num-edges",
            "25000",
            "--feature-dim",
            "2048",
            "--locality",
            "0.99",
            "--community-size",
            "32",
            "--fanouts",
            "5,5",
            "--batch-size",
            "16",
            "--batches",
            "20",
            "--layouts",
            "identity,neighborhood,seed-groups",
            "--coalescing",
            "merged,near",
            "--probe-seconds",
            "0.1",
            "--work-dir",
            tmp.toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out().strip());
    assertThat(j.get("rows_identical_across_runs").asBoolean()).isTrue();
    assertThat(j.get("neighborhood_merged_misses").asLong())
        .isEqualTo(j.get("identity_merged_misses").asLong());
    assertThat(j.get("training_vertices").asInt()).isEqualTo(20 * 16);
    // 8 KiB rows: rows at their ids seldom lie within the 32 KiB gap of each other; laid out by
    // either layout a store records, a seed's sampled rows lie side by side
    for (String layout : new String[] {"neighborhood", "seed-groups"}) {
      for (String c : new String[] {"merged", "near"}) {
        assertThat(j.get(layout + "_" + c + "_misses").asLong())
            .isEqualTo(j.get("identity_merged_misses").asLong());
        assertThat(j.get(layout + "_" + c + "_read_calls").asLong() * 2)
            .as(layout + "_" + c)
            .isLessThan(j.get("identity_merged_read_calls").asLong());
      }
    }
    // near reads move fewer bytes a row needs not
    assertThat(j.get("seed-groups_near_bytes_transferred").asLong())
        .isLessThanOrEqualTo(j.get("seed-groups_merged_bytes_transferred").asLong());
  }

  @Test
  void theSparkFreeMainTakesTheCommandsOptions() {
    assertThat(OutOfCoreBenchmarkMain.parse(new String[] {"--batches", "7", "--io-threads", "16"}))
        .containsEntry("batches", "7")
        .containsEntry("io-threads", "16");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> OutOfCoreBenchmarkMain.parse(new String[] {"--policies", "lru"}))
        .isInstanceOf(io.fanout.store.InvalidInputException.class)
        .hasMessageContaining("policies");
  }

  @Test
  void unknownLayoutsAreRefused() {
    Result r = cli("bench-out-of-core", "--num-vertices", "100", "--layouts", "by-degree");
    assertThat(r.code()).isNotZero();
    assertThat(r.err()).contains("--layouts").contains("first-use");
  }
}
