package io.fanout.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.fanout.spark.internal.JobLabels;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each of the five stages, cancelled from another thread as soon as its first Spark job runs,
 * through the caller's job group ({@code sc.cancelJobGroup}) and through a session tag ({@code
 * spark.addTag}, {@code spark.interruptTag}): the call fails with {@link FanoutCancelledException}
 * naming the stage, within the bound, nothing is published, and the session goes on.
 */
@Tag("slow")
class StageCancelTest {
  /** The test's generous bound from the cancel to the failed call; the target is 1 s. */
  static final long BOUND_MILLIS = 5_000;

  static final long WAIT_MILLIS = 60_000;

  @TempDir static Path work;
  static SparkSession spark;
  static final PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
  static final StageStarts starts = new StageStarts();
  static final AtomicInteger runs = new AtomicInteger();
  static Path store;
  static Path shards;
  static Path model;

  /** Records when the first job labelled with the expected stage started, as Spark timed it. */
  static final class StageStarts extends SparkListener {
    private volatile String stage;
    private final AtomicLong firstStart = new AtomicLong();

    void expect(String stage) {
      firstStart.set(0);
      this.stage = stage;
    }

    /** The start time (epoch milliseconds) of the stage's first job, or 0. */
    long firstStart() {
      return firstStart.get();
    }

    @Override
    public void onJobStart(SparkListenerJobStart e) {
      String d = e.properties() == null ? null : e.properties().getProperty(JobLabels.DESCRIPTION);
      if (d != null && stage != null && d.startsWith("fanout " + stage + ":")) {
        firstStart.compareAndSet(0, e.time());
      }
    }
  }

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("StageCancelTest");
    spark.sparkContext().addSparkListener(starts);
    store = work.resolve("cora.store");
    shards = work.resolve("cora.shards");
    model = work.resolve("cora.model");
    prepare(store).execute();
    sample(shards, 2).execute();
    train(model, 1).execute();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static PrepareAction prepare(Path out) {
    Path cora = SparkTestSession.dataset("cora");
    return Fanout.get(spark)
        .prepare()
        .option("vertices", cora.resolve("vertices.parquet").toString())
        .option("edges", cora.resolve("edges.parquet").toString())
        .option("undirected", "true")
        .output(out.toString());
  }

  static SampleAction sample(Path out, int epochs) {
    return Fanout.get(spark)
        .sample(store.toString())
        .output(out.toString())
        .split("train")
        .fanouts(10, 5)
        .batchSize(16)
        .epochs(epochs)
        .seed(1)
        .progress(quiet);
  }

  static TrainAction train(Path dir, int epochs) {
    return Fanout.get(spark)
        .train(store.toString(), shards.toString())
        .modelDir(dir.toString())
        .epochs(epochs)
        .hidden(16)
        .seed(3)
        .progress(quiet);
  }

  /** Sampled inference one seed per batch: seconds of work on cora, checked between batches. */
  static EvaluateAction evaluate() {
    return Fanout.get(spark)
        .evaluate(store.toString(), model.toString())
        .option("neighbors", "sampled")
        .option("fanouts", "25,25")
        .option("batch-size", "1");
  }

  static InferAction infer(Path out) {
    return Fanout.get(spark)
        .infer(store.toString(), model.toString())
        .output(out.toString())
        .option("neighbors", "sampled")
        .option("fanouts", "25,25")
        .option("batch-size", "1");
  }

  /** How the test cancels a running stage. */
  enum Via {
    GROUP,
    TAG
  }

  /**
   * Runs {@code stage}'s call on a caller thread (in its own job group without interrupts, as a
   * notebook cell; or with a session tag) while this thread cancels that group or tag every 10 ms,
   * so that the stage is cancelled as soon as its first job runs; returns the exception the call
   * failed with, once checked: its type, its stage, and the time from the start of the stage's
   * first job to the end of the call.
   */
  static FanoutCancelledException cancel(String stage, Via via, Supplier<?> call) throws Exception {
    String name = "cell-" + stage + "-" + runs.incrementAndGet();
    starts.expect(stage);
    AtomicLong ended = new AtomicLong();
    if (via == Via.TAG) {
      // Spark scopes a session tag to the thread that added it and the threads it starts.
      spark.addTag(name);
    }
    ExecutorService caller = Executors.newSingleThreadExecutor(r -> new Thread(r, name));
    try {
      Future<?> running =
          caller.submit(
              () -> {
                if (via == Via.GROUP) {
                  spark.sparkContext().setJobGroup(name, "a notebook cell", false);
                }
                try {
                  return call.get();
                } finally {
                  ended.set(System.currentTimeMillis());
                  spark.sparkContext().clearJobGroup();
                  spark.clearTags();
                }
              });
      long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000L;
      // A cancel reaches the jobs running when it is called: one before the first job does
      // nothing, the next one 10 ms later cancels it.
      while (!running.isDone() && System.nanoTime() < deadline) {
        if (via == Via.GROUP) {
          spark.sparkContext().cancelJobGroup(name);
        } else {
          spark.interruptTag(name);
        }
        Thread.sleep(10);
      }
      try {
        running.get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
        return fail(stage + " ended without being cancelled");
      } catch (ExecutionException e) {
        spark.sparkContext().listenerBus().waitUntilEmpty();
        assertThat(starts.firstStart()).as("a job of " + stage + " started").isPositive();
        long millis = ended.get() - starts.firstStart();
        System.out.printf(
            "%s cancelled through its %s: the call ended %d ms after its first job started%n",
            stage, via, millis);
        assertThat(e.getCause()).isInstanceOf(FanoutCancelledException.class);
        FanoutCancelledException c = (FanoutCancelledException) e.getCause();
        assertThat(c.stage()).isEqualTo(stage);
        assertThat(c.getMessage()).startsWith(stage + " cancelled (").contains(name);
        assertThat(millis)
            .as("milliseconds from the first job's start to the end of the call")
            .isLessThan(BOUND_MILLIS);
        return c;
      }
    } finally {
      if (via == Via.TAG) {
        spark.removeTag(name);
      }
      caller.shutdownNow();
      assertThat(caller.awaitTermination(WAIT_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
      assertSessionGoesOn();
    }
  }

  /** No job is left running, and the session runs a new one. */
  static void assertSessionGoesOn() throws Exception {
    long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000L;
    while (spark.sparkContext().statusTracker().getActiveJobIds().length > 0) {
      assertThat(System.nanoTime()).as("jobs still running").isLessThan(deadline);
      Thread.sleep(10);
    }
    assertThat(spark.range(10).count()).isEqualTo(10L);
  }

  static void assertNothingPublished(Path out) throws Exception {
    if (Files.exists(out)) {
      try (Stream<Path> files = Files.list(out)) {
        assertThat(files.map(p -> p.getFileName().toString()).toList())
            .noneMatch(n -> n.equals("manifest.json") || n.equals("_SUCCESS"));
      }
    }
  }

  @Test
  void cancellingPrepareStopsIt() throws Exception {
    for (Via via : Via.values()) {
      Path out = work.resolve("prepare-" + via);
      FanoutCancelledException c = cancel("prepare", via, () -> prepare(out).execute());
      assertThat(c.kept()).contains("nothing was published");
      assertNothingPublished(out);
    }
  }

  @Test
  void cancellingSampleStopsIt() throws Exception {
    for (Via via : Via.values()) {
      Path out = work.resolve("shards-" + via);
      FanoutCancelledException c = cancel("sample", via, () -> sample(out, 200).execute());
      assertThat(c.kept()).contains("nothing was published");
      assertNothingPublished(out);
    }
  }

  @Test
  void cancellingTrainStopsIt() throws Exception {
    for (Via via : Via.values()) {
      Path dir = work.resolve("model-" + via);
      FanoutCancelledException c = cancel("train", via, () -> train(dir, 100_000).execute());
      assertThat(c.kept()).contains(dir.toString()).contains("resume");
      if (Checkpoint.exists(dir)) {
        assertThat(Checkpoint.read(dir).epochs()).isPositive();
      }
    }
  }

  @Test
  void cancellingEvaluateStopsIt() throws Exception {
    for (Via via : Via.values()) {
      FanoutCancelledException c = cancel("evaluate", via, () -> evaluate().execute());
      assertThat(c.kept()).contains("nothing was written");
    }
  }

  @Test
  void cancellingInferStopsIt() throws Exception {
    for (Via via : Via.values()) {
      Path out = work.resolve("predictions-" + via);
      FanoutCancelledException c = cancel("infer", via, () -> infer(out).execute());
      assertThat(c.kept()).contains("nothing was published");
      assertThat(out).doesNotExist();
      List<Path> leftovers;
      try (Stream<Path> files = Files.list(work)) {
        leftovers =
            files.filter(p -> p.getFileName().toString().startsWith(".predictions-")).toList();
      }
      assertThat(leftovers).isEmpty();
    }
  }
}
