package io.fanout.bench.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import org.junit.jupiter.api.Test;

/** {@code bench-cache} on a tiny generated graph: every policy's counters and times in one JSON. */
class BenchCacheCommandTest {
  @Test
  void replaysEveryPolicyAndReportsItAgainstReadingMemory() throws Exception {
    for (String access : new String[] {"resolve", "gather"}) {
      Result r =
          cli(
              "bench-cache",
              "--num-vertices",
              "3000",
              "--num-edges",
              "30000",
              "--feature-dim",
              "8",
              "--fanouts",
              "5,5",
              "--batch-size",
              "64",
              "--batches",
              "40",
              "--policies",
              "belady,lru,none",
              "--access",
              access);
      assertThat(r.code()).as(r.err()).isZero();
      JsonNode j = new ObjectMapper().readTree(r.out().strip());
      long accesses = j.get("row_accesses").asLong();
      assertThat(accesses).isPositive();
      assertThat(j.get("batches").asInt()).isEqualTo(40);
      assertThat(j.get("access").asText()).isEqualTo(access);
      // the last round's counters: every access a hit or a miss, every miss read once
      for (String p : new String[] {"belady", "lru", "none"}) {
        long misses = j.get(p + "_misses").asLong();
        assertThat(j.get(p + "_hits").asLong() + misses).as(p).isEqualTo(accesses);
        assertThat(j.get(p + "_rows_read").asLong()).as(p).isEqualTo(misses);
        assertThat(j.get(p + "_bytes_transferred").asLong()).isGreaterThanOrEqualTo(misses * 32);
        assertThat(j.get(p + "_seconds_per_batch").asDouble()).isPositive();
        assertThat(j.get(p + "_over_memory_gather").asDouble()).isPositive();
      }
      assertThat(j.get("none_misses").asLong()).isEqualTo(accesses);
      assertThat(j.get("belady_misses").asLong()).isLessThanOrEqualTo(j.get("lru_misses").asLong());
      assertThat(j.get("memory_gather_ns_per_access").asDouble()).isPositive();
    }
  }

  @Test
  void badOptionsExit2NamingTheOption() {
    Result p = cli("bench-cache", "--num-vertices", "100", "--policies", "belady,fifo");
    assertThat(p.code()).isEqualTo(2);
    assertThat(p.err()).contains("--policies").contains("fifo");
    Result f = cli("bench-cache", "--num-vertices", "100", "--cache-fraction", "0");
    assertThat(f.code()).isEqualTo(2);
    assertThat(f.err()).contains("--cache-fraction");
    Result a = cli("bench-cache", "--num-vertices", "100", "--access", "mapped");
    assertThat(a.code()).isEqualTo(2);
    assertThat(a.err()).contains("access").contains("mapped");
  }
}
