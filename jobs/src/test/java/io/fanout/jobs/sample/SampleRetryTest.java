package io.fanout.jobs.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.shard.ShardManifest;
import io.fanout.spark.internal.Hooks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task that dies after writing half its part file is retried ({@code local[2,2]}: two attempts
 * per task) and the shards come out byte-identical to a run without failures, in both modes.
 */
@Tag("slow")
class SampleRetryTest {
  static SparkSession spark;
  @TempDir static Path tmp;
  static Path store;

  @BeforeAll
  static void start() {
    spark =
        SparkSession.builder()
            .master("local[2,2]")
            .appName("SampleRetryTest")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate();
    store = SampleFixtures.prepare(spark, "cora", 2, tmp.resolve("cora.store"));
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void aFailedAttemptIsRetriedToTheSameBytes() throws Exception {
    String[] opts = {
      "--split", "all", "--batch-size", "200", "--fanouts", "5,5", "--batches-per-shard", "2"
    };
    Path clean = tmp.resolve("clean");
    SampleFixtures.sampleOk(store, clean, opts);
    Map<String, byte[]> want = SampleFixtures.files(clean);
    want.remove(ShardManifest.FILE);
    for (String mode : new String[] {"replicated", "partitioned"}) {
      Path out = tmp.resolve("retried-" + mode);
      spark.conf().set(Hooks.PART_WRITE_OBSERVER, FailFirstAttempt.class.getName());
      int injected = FailFirstAttempt.INJECTED.get();
      try {
        SampleFixtures.sampleOk(store, out, SampleJobTest.concat(opts, "--mode", mode));
      } finally {
        spark.conf().unset(Hooks.PART_WRITE_OBSERVER);
      }
      assertThat(FailFirstAttempt.INJECTED.get()).isEqualTo(injected + 1);
      Map<String, byte[]> got = SampleFixtures.files(out);
      got.remove(ShardManifest.FILE);
      assertThat(got.keySet()).isEqualTo(want.keySet());
      for (String k : want.keySet()) {
        assertThat(got.get(k)).as(mode + " " + k).isEqualTo(want.get(k));
      }
      assertThat(ShardManifest.read(out).files).hasSize(want.size());
      try (var s = Files.list(out)) {
        assertThat(s.map(p -> p.getFileName().toString()).toList())
            .containsExactlyInAnyOrder("manifest.json", "_publish.lock", "v-0001");
      }
    }
  }
}
