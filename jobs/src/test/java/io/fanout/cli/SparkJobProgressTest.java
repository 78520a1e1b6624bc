package io.fanout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.spark.internal.JobLabels;
import io.fanout.testing.SparkTestSession;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Spark job line from the status tracker, and the polling thread's end. */
class SparkJobProgressTest {
  static SparkSession spark;
  static SparkContext sc;
  // Tasks run in this JVM (local mode): they meet the test through these.
  static final CountDownLatch TASKS_STARTED = new CountDownLatch(2);
  static final CountDownLatch RELEASE_TASKS = new CountDownLatch(1);

  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("SparkJobProgressTest");
    sc = spark.sparkContext();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void showsTheRunningJobsDescriptionAndTasksThenStopsItsThread() throws Exception {
    long[] now = {0};
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    ProgressRenderer renderer =
        new ProgressRenderer(
            new PrintStream(captured, true, StandardCharsets.UTF_8),
            ProgressMode.LOG,
            () -> now[0],
            ProgressRenderer.REDRAW_NANOS,
            ProgressRenderer.LOG_PERIOD_NANOS,
            200);
    SparkJobProgress progress = new SparkJobProgress(sc, renderer, () -> false);
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      Future<?> job =
          caller.submit(
              () ->
                  JobLabels.run(
                      spark,
                      "test",
                      "two blocked tasks",
                      1,
                      1,
                      () ->
                          new JavaSparkContext(sc)
                              .parallelize(List.of(1, 2), 2)
                              .foreach(
                                  x -> {
                                    TASKS_STARTED.countDown();
                                    RELEASE_TASKS.await();
                                  })));
      TASKS_STARTED.await();
      sc.listenerBus().waitUntilEmpty(); // the status store has seen the job and its stage

      now[0] += ProgressRenderer.LOG_PERIOD_NANOS;
      progress.poll();
      RELEASE_TASKS.countDown();
      job.get();
    } finally {
      RELEASE_TASKS.countDown();
      caller.shutdown();
      assertThat(caller.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
    }
    assertThat(captured.toString(StandardCharsets.UTF_8))
        .isEqualTo("test: two blocked tasks (1/1) | tasks 0/2\n");

    progress.start();
    assertThat(progressThreads()).isOne();
    progress.close();
    assertThat(progressThreads()).isZero();
  }

  @Test
  void aCommandLeavesNoProgressThreadAndRejectsAnUnknownMode() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        FanoutCli.run(
            List.of(
                "generate",
                "--output",
                tmp.resolve("g").toString(),
                "--num-vertices",
                "50",
                "--num-edges",
                "200",
                "--progress",
                "log"),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(progressThreads()).isZero();

    int bad =
        FanoutCli.run(
            List.of("generate", "--output", tmp.resolve("h").toString(), "--progress", "bars"),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(bad).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--progress is 'bars'; expected auto, terminal, log or none");
  }

  private static long progressThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals(SparkJobProgress.THREAD) && t.isAlive())
        .count();
  }
}
