package io.fanout.jobs.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun;
import io.fanout.store.OutputLock;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A graph store or shard directory that another writer holds is refused with exit 2 naming the
 * holder, and written once the holder is gone; the lock file is never part of the output.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OutputWriterLockTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  /** Cora prepared by {@link #aHeldStoreRefusesASecondPrepare} once its holder is gone. */
  static Path cora;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("OutputWriterLockTest");
  }

  /** The store the prepare test wrote, or (when that test did not run first) a fresh one. */
  private static synchronized Path cora() {
    if (cora == null) {
      cora = SampleFixtures.prepare(spark, "cora", 2, tmp.resolve("cora.store"));
    }
    return cora;
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  @Order(2)
  void aHeldShardOutputRefusesASecondSample() throws Exception {
    Path cora = cora();
    Path out = tmp.resolve("shards");
    String[] opts = {"--batch-size", "64", "--fanouts", "3,3", "--seed", "1"};
    try (OutputLock other = OutputLock.acquire(out, "shards")) {
      CliRun.Result r = SampleFixtures.sample(cora, out, opts);
      assertThat(r.code()).as(r.err()).isEqualTo(2);
      assertThat(r.err())
          .contains(out.toString())
          .contains("another writer")
          .contains("pid " + ProcessHandle.current().pid())
          .doesNotContain("\tat ");
      assertThat(out).doesNotExist();
    }
    SampleFixtures.sampleOk(cora, out, opts);
    assertThat(names(out)).doesNotContain(".shards.lock");
    assertThat(tmp.resolve(".shards.lock")).doesNotExist();
  }

  @Test
  @Order(1)
  void aHeldStoreRefusesASecondPrepare() throws Exception {
    Path store = tmp.resolve("again.store");
    try (OutputLock other = OutputLock.acquire(store, "graph store")) {
      Throwable t = null;
      try {
        SampleFixtures.prepare(spark, "cora", 2, store);
      } catch (RuntimeException | AssertionError e) {
        t = e;
      }
      assertThat(t).isNotNull();
      assertThat(t.getMessage()).contains("another writer").contains(store.toString());
      assertThat(store).doesNotExist();
    }
    SampleFixtures.prepare(spark, "cora", 2, store);
    assertThat(StoreManifest.read(store).vertices).isPositive();
    assertThat(tmp.resolve(".again.store.lock")).doesNotExist();
    synchronized (OutputWriterLockTest.class) {
      if (cora == null) {
        cora = store;
      }
    }
  }

  private static java.util.List<String> names(Path d) throws Exception {
    try (var s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).toList();
    }
  }
}
