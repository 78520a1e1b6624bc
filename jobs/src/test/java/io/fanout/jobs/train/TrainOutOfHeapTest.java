package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.cli.CliRun.Result;
import io.fanout.spark.Fanout;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.OutOfHeapException;
import io.fanout.train.TrainProgress;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trainer that runs out of heap (an OutOfMemoryError injected after its first step) ends with
 * exit 2 and one line giving the heap size, the batch size and the options to change, and leaves no
 * model dir behind; the Java API throws {@link OutOfHeapException}. Without the fix, Spark's
 * executor handler ends the JVM on an OutOfMemoryError in a task.
 */
class TrainOutOfHeapTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path store;
  static Path shards;

  @BeforeAll
  static void fixtures() throws Exception {
    spark = SparkTestSession.start("TrainOutOfHeapTest");
    TrainFixtures.Graph g = TrainFixtures.graph(6, 150, 8);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, g);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, g, new int[] {4, 3}, 16, 2, 1);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Throws OutOfMemoryError from the training thread after the first step, while registered. */
  static TrainProgress.Registration outOfHeapAfterAStep() {
    return TrainProgress.register(
        new TrainProgress() {
          @Override
          public void batchDone(Batch batch) {
            throw new OutOfMemoryError("Java heap space (injected)");
          }
        });
  }

  @Test
  void theCliExitsTwoWithOneLineAndLeavesNoModelDir() {
    Path model = tmp.resolve("cli-model");
    Result r;
    try (TrainProgress.Registration ignored = outOfHeapAfterAStep()) {
      r = cli(TrainFixtures.trainArgs(store, shards, model, "--epochs", "2", "--progress", "none"));
    }
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err())
        .startsWith("fanout train: error: train ran out of Java heap (max heap ")
        .contains("batches of 16 seeds, fanouts 4,3")
        .contains("FANOUT_JAVA_OPTS=-Xmx")
        .contains("bin/fanout sample --batch-size 8")
        .doesNotContain("\tat ");
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(model).doesNotExist();
  }

  @Test
  void theJavaApiThrowsOutOfHeapException() {
    Path model = tmp.resolve("api-model");
    try (TrainProgress.Registration ignored = outOfHeapAfterAStep()) {
      assertThatThrownBy(
              () ->
                  Fanout.get(spark)
                      .train(store.toString(), shards.toString())
                      .modelDir(model.toString())
                      .epochs(2)
                      .progress(null)
                      .execute())
          .isInstanceOf(OutOfHeapException.class)
          .hasMessageContaining("ran out of Java heap")
          .hasCauseInstanceOf(OutOfMemoryError.class);
    }
    assertThat(model).doesNotExist();
    // the same run without the injected fault trains
    assertThat(
            Fanout.get(spark)
                .train(store.toString(), shards.toString())
                .modelDir(model.toString())
                .epochs(2)
                .progress(null)
                .execute()
                .epochsRun())
        .isEqualTo(2);
  }
}
