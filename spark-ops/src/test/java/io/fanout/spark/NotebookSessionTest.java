package io.fanout.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.shard.ShardManifest;
import io.fanout.spark.train.TrainOptionsDefs;
import io.fanout.store.InvalidInputException;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import io.fanout.train.CheckpointPick;
import io.fanout.train.ModelEvaluation;
import io.fanout.train.TrainRun;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TimeZone;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline as a notebook runs it: one long-lived SparkSession, one step per cell through the
 * Java API, results read as DataFrames; reruns skip or fail clearly; a running {@code train} is
 * cancelled through its job group and the session keeps working; and Fanout leaves the session, the
 * JVM's settings, its threads and open files as it found them.
 *
 * <p>Steps share the class's state and run in {@link Order} order, like notebook cells: 1x prepare,
 * 2x sample, 3x train, 4x reruns, 5x (free: evaluate, infer and embeddings), 6x cancellation, 9x
 * hygiene.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NotebookSessionTest {
  /** Waits on conditions that must come true; generous, as only a failure reaches them. */
  static final long WAIT_MILLIS = 60_000;

  @TempDir static Path work;
  static SparkSession spark;
  static PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());

  static Path store;
  static Path trainShards;
  static Path valShards;
  static Path model;

  // What the session, the calling thread and the JVM looked like before Fanout ran.
  static Map<String, String> confBefore;
  static Map<String, String> labelsBefore;
  static Properties systemBefore;
  static Locale localeBefore;
  static TimeZone zoneBefore;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("NotebookSessionTest");
    confBefore = conf();
    labelsBefore = labels();
    systemBefore = (Properties) System.getProperties().clone();
    localeBefore = Locale.getDefault();
    zoneBefore = TimeZone.getDefault();
    store = work.resolve("cora.store");
    trainShards = work.resolve("cora.train-shards");
    valShards = work.resolve("cora.val-shards");
    model = work.resolve("cora.model");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static Map<String, String> conf() {
    return new TreeMap<>(scala.jdk.javaapi.CollectionConverters.asJava(spark.conf().getAll()));
  }

  static Map<String, String> labels() {
    SparkContext sc = spark.sparkContext();
    Map<String, String> m = new HashMap<>();
    for (String k :
        List.of(
            "spark.jobGroup.id",
            "spark.job.description",
            "spark.job.interruptOnCancel",
            "spark.fanout.watch.id")) {
      m.put(k, sc.getLocalProperty(k));
    }
    return m;
  }

  // ---- 1x: prepare ----

  @Test
  @Order(10)
  void prepare() {
    Path cora = SparkTestSession.dataset("cora");
    PrepareResult r = prepareAction(cora).execute();
    assertThat(r.skipped()).isFalse();
    assertThat(r.manifest().vertices).isEqualTo(2708);
    assertThat(r.manifest().classes).isEqualTo(7);

    Row summary = r.summary().collectAsList().get(0);
    assertThat(summary.<String>getAs("store")).isEqualTo(store.toString());
    assertThat(summary.<Long>getAs("vertices")).isEqualTo(2708L);
    assertThat(summary.<Long>getAs("edges")).isEqualTo(r.manifest().edges);
    assertThat(summary.<Integer>getAs("classes")).isEqualTo(7);
    assertThat(
            summary.<Long>getAs("train") + summary.<Long>getAs("val") + summary.<Long>getAs("test"))
        .isPositive()
        .isLessThanOrEqualTo(2708L);
    List<Row> parts = r.partitions().collectAsList();
    assertThat(parts).hasSize(r.manifest().partitions);
    long vertices = 0;
    long edges = 0;
    for (int p = 0; p < parts.size(); p++) {
      assertThat(parts.get(p).<Integer>getAs("partition")).isEqualTo(p);
      assertThat(parts.get(p).<Long>getAs("first_vertex")).isEqualTo(vertices);
      vertices += parts.get(p).<Long>getAs("vertices");
      edges += parts.get(p).<Long>getAs("edges");
    }
    assertThat(vertices).isEqualTo(2708L);
    assertThat(edges).isEqualTo(r.manifest().edges);
  }

  static PrepareAction prepareAction(Path cora) {
    return Fanout.get(spark)
        .prepare()
        .option("vertices", cora.resolve("vertices.parquet").toString())
        .option("edges", cora.resolve("edges.parquet").toString())
        .option("undirected", "true")
        .option("dedupe", "true")
        .option("self-loops", "drop")
        .output(store.toString());
  }

  // ---- 2x: sample ----

  static SampleAction trainSample() {
    return Fanout.get(spark)
        .sample(store.toString())
        .output(trainShards.toString())
        .split("train")
        .fanouts(10, 5)
        .batchSize(32)
        .epochs(2)
        .seed(1)
        .option("batches-per-shard", "2")
        .progress(quiet);
  }

  @Test
  @Order(20)
  void sampleTrainAndValShards() {
    SampleResult train = trainSample().execute();
    assertThat(train.skipped()).isFalse();
    assertThat(train.output()).isEqualTo(trainShards);
    // Cora: 140 training vertices = 5 batches of 32 per epoch, in 3 part files of <= 2 batches.
    assertThat(train.batchesPerEpoch()).isEqualTo(5);
    assertThat(train.partCount()).isEqualTo(6);
    assertThat(train.manifest().totals.seeds).isEqualTo(2 * 140);

    Dataset<Row> parts = train.parts();
    assertThat(parts.columns())
        .containsExactly(
            "epoch", "part", "first_batch", "batches", "seeds", "nodes", "edges", "bytes", "path");
    List<Row> rows = parts.orderBy("epoch", "part").collectAsList();
    assertThat(rows).hasSize(6);
    long seeds = 0;
    long bytes = 0;
    for (int i = 0; i < rows.size(); i++) {
      Row row = rows.get(i);
      ShardManifest.Part p = train.manifest().files.get(i);
      assertThat(row.getInt(0)).isEqualTo(p.epoch);
      assertThat(row.getInt(1)).isEqualTo(p.part);
      assertThat(row.getInt(2)).isEqualTo(p.firstBatch);
      assertThat(row.getInt(3)).isEqualTo(p.endBatch - p.firstBatch);
      assertThat(Files.isRegularFile(Path.of(row.getString(8)))).isTrue();
      seeds += row.getLong(4);
      bytes += row.getLong(7);
    }
    assertThat(seeds).isEqualTo(train.manifest().totals.seeds);
    assertThat(bytes).isEqualTo(train.bytes());
    // The part files are ordinary Parquet: one row per batch.
    assertThat(spark.read().parquet(rows.get(0).getString(8)).count()).isEqualTo(2);

    SampleResult val =
        Fanout.get(spark)
            .sample(store.toString())
            .output(valShards.toString())
            .split("val")
            .fanouts(10, 5)
            .batchSize(256)
            .progress(quiet)
            .execute();
    assertThat(val.skipped()).isFalse();
    assertThat(val.manifest().seedsPerEpoch).isEqualTo(500);
    assertThat(val.parts().count()).isEqualTo(1);
  }

  // ---- 3x: train ----

  static TrainAction trainAction(Path modelDir, int epochs) {
    return Fanout.get(spark)
        .train(store.toString(), trainShards.toString())
        .modelDir(modelDir.toString())
        .valShards(valShards.toString())
        .epochs(epochs)
        .hidden(16)
        .seed(3)
        .progress(quiet);
  }

  @Test
  @Order(30)
  void train() throws IOException {
    TrainResult r = trainAction(model, 3).execute();
    assertThat(r.modelDir()).isEqualTo(model);
    assertThat(r.model()).isEqualTo("sage");
    assertThat(r.layers()).isEqualTo(2);
    assertThat(r.epochsRun()).isEqualTo(3);
    assertThat(r.workers()).isEqualTo(1);
    assertThat(r.finalLoss()).isPositive();
    assertThat(r.toJson()).startsWith("{\"model_dir\":\"" + model + "\",\"model\":\"sage\"");
    assertThat(r.stoppedEarly()).isFalse();
    assertThat(r.bestEpoch()).isEqualTo(-1);
    assertThat(r.toJson()).doesNotContain("stopped_early").doesNotContain("best_epoch");

    Dataset<Row> metrics = r.metrics();
    assertThat(metrics.columns())
        .startsWith("epoch", "loss", "train_accuracy", "val_accuracy", "val_loss");
    List<Row> rows = metrics.collectAsList();
    assertThat(rows).hasSize(3);
    for (int e = 0; e < 3; e++) {
      assertThat(rows.get(e).getLong(0)).isEqualTo(e);
      assertThat(rows.get(e).getDouble(3)).isBetween(0.0, 1.0);
    }
    assertThat(rows.get(2).getDouble(1)).isEqualTo(r.finalLoss(), within(1e-5));
    assertThat(Checkpoint.read(model).epochs()).isEqualTo(3);

    // Inside a Spark task, the same model as the Spark-free trainer on this thread, bit for bit.
    Path direct = work.resolve("cora.model-direct");
    TrainRun.train(
        TrainOptionsDefs.spec(
            FanoutConf.of(
                "train",
                TrainCommandOptions.TRAIN,
                Map.of(
                    "graph", store.toString(),
                    "shards", trainShards.toString(),
                    "val-shards", valShards.toString(),
                    "model-dir", direct.toString(),
                    "epochs", "3",
                    "hidden", "16",
                    "seed", "3"))),
        null);
    assertThat(Files.readAllBytes(Checkpoint.file(direct)))
        .isEqualTo(Files.readAllBytes(Checkpoint.file(model)));
  }

  @Test
  @Order(31)
  void aRunThatStopsEarlySaysSoInItsResultAsInItsMetrics() throws IOException {
    Path dir = work.resolve("cora.model-early");
    TrainResult r = trainAction(dir, 30).earlyStop(1).execute();
    List<String> lines = Files.readAllLines(dir.resolve("metrics.jsonl"));
    Dataset<Row> metrics = r.metrics();
    Row last = metrics.collectAsList().get(lines.size() - 1);
    assertThat(r.epochsRun()).as("stops before its 30th epoch").isEqualTo(lines.size());
    assertThat(r.epochsRun()).isLessThan(30);
    assertThat(last.getBoolean(last.fieldIndex("stopped_early"))).isTrue();
    assertThat(r.stoppedEarly()).isTrue();
    assertThat(r.bestEpoch())
        .isEqualTo(last.getLong(last.fieldIndex("best_epoch")))
        .isLessThan(r.epochsRun() - 1);
    assertThat(r.toJson())
        .contains("\"epochs_run\":" + r.epochsRun() + ",")
        .contains(",\"stopped_early\":true,\"best_epoch\":" + r.bestEpoch());
    TrainResult again = trainAction(dir, 30).earlyStop(1).execute();
    assertThat(again.skipped()).isTrue();
    assertThat(again.stoppedEarly()).isTrue();
    assertThat(again.bestEpoch()).isEqualTo(r.bestEpoch());
  }

  @Test
  @Order(32)
  void trainingShowsEachEpochInTheSparkUiAndToItsListener() throws Exception {
    List<String> described = new java.util.concurrent.CopyOnWriteArrayList<>();
    org.apache.spark.scheduler.SparkListener jobs =
        new org.apache.spark.scheduler.SparkListener() {
          @Override
          public void onJobStart(org.apache.spark.scheduler.SparkListenerJobStart e) {
            Properties p = e.properties();
            if (p != null
                && "fanout-train".equals(p.getProperty("spark.jobGroup.id"))
                && p.getProperty("spark.job.description") != null) {
              described.add(p.getProperty("spark.job.description"));
            }
          }
        };
    List<Integer> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
    spark.sparkContext().addSparkListener(jobs);
    try {
      trainAction(work.resolve("cora.model-progress"), 3)
          .listener(
              new io.fanout.train.TrainProgress() {
                @Override
                public void epochEnded(
                    io.fanout.train.EpochStats s, int epochs, io.fanout.train.Accuracy v) {
                  heard.add(s.epoch());
                }
              })
          .execute();
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } finally {
      spark.sparkContext().removeSparkListener(jobs);
    }
    assertThat(heard).containsExactly(0, 1, 2);
    assertThat(described.get(0)).isEqualTo("fanout train: training (1/1)");
    List<String> epochs = described.subList(1, described.size());
    assertThat(epochs).hasSize(3);
    for (int e = 1; e <= 3; e++) {
      assertThat(epochs.get(e - 1))
          .matches(
              "fanout train: epoch "
                  + e
                  + "/3, step 5/5, loss [0-9.]+, val [0-9.]+, ETA [0-9hms]+ \\(1/1\\)");
    }
    assertThat(epochs.get(2)).contains("ETA 0s");
  }

  static org.assertj.core.data.Offset<Double> within(double d) {
    return org.assertj.core.data.Offset.offset(d);
  }

  // ---- 4x: reruns ----

  @Test
  @Order(40)
  void rerunsSkipOrFailClearly() throws IOException {
    Path cora = SparkTestSession.dataset("cora");
    Map<Path, String> storeBytes = contents(store);
    assertThat(prepareAction(cora).execute().skipped()).isTrue();
    assertThat(contents(store)).isEqualTo(storeBytes);

    // The train cell again: the earlier result, skipped, nothing changed. More epochs need
    // mode("resume"); resuming a finished run trains nothing and changes nothing.
    byte[] checkpoint = Files.readAllBytes(Checkpoint.file(model));
    TrainResult trainAgain = trainAction(model, 3).execute();
    assertThat(trainAgain.skipped()).isTrue();
    assertThat(trainAgain.epochsRun()).isZero();
    assertThat(trainAgain.finalLoss()).isPositive();
    assertThatThrownBy(() -> trainAction(model, 4).execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("already holds a checkpoint")
        .hasMessageContaining("mode(\"resume\")");
    TrainResult resumed = trainAction(model, 3).resume(true).execute();
    assertThat(resumed.epochsRun()).isZero();
    assertThat(resumed.skipped()).isTrue();
    assertThat(Files.readAllBytes(Checkpoint.file(model))).isEqualTo(checkpoint);

    // The same sample again: skipped, not a byte changed.
    Map<Path, String> shardBytes = contents(trainShards);
    Map<Path, String> shardData =
        contents(io.fanout.shard.ShardManifest.read(trainShards).dataRoot(trainShards));
    SampleResult again = trainSample().execute();
    assertThat(again.skipped()).isTrue();
    assertThat(again.toJson()).contains("\"skipped\":true");
    assertThat(again.parts().count()).isEqualTo(6);
    assertThat(contents(trainShards)).isEqualTo(shardBytes);

    // Another request into the same directory: refused without overwrite, nothing touched.
    assertThatThrownBy(() -> trainSample().seed(2).execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(trainShards.toString())
        .hasMessageContaining("overwrite");
    assertThat(contents(trainShards)).isEqualTo(shardBytes);

    // With overwrite: replaced.
    SampleResult replaced = trainSample().seed(2).overwrite(true).execute();
    assertThat(replaced.skipped()).isFalse();
    assertThat(replaced.manifest().seed).isEqualTo(2);
    assertThat(contents(trainShards)).isNotEqualTo(shardBytes);
    // The first request again: byte-identical shards in a new version folder, and the same
    // fingerprint (overwrite is how to run, not what to sample), so the model trained on them
    // still resumes.
    SampleResult restored = trainSample().overwrite(true).execute();
    assertThat(restored.skipped()).isFalse();
    assertThat(restored.manifest().dataDir).isEqualTo("v-0003");
    assertThat(restored.manifest().fingerprint()).isEqualTo(again.manifest().fingerprint());
    assertThat(contents(restored.manifest().dataRoot(trainShards))).isEqualTo(shardData);
    assertThat(trainAction(model, 3).resume(true).execute().epochsRun()).isZero();
  }

  @Test
  @Order(41)
  void badTrainingInputFailsOnTheDriverBeforeAnyJob() {
    int jobsBefore = spark.sparkContext().statusTracker().getJobIdsForGroup("fanout-train").length;
    Path fresh = work.resolve("cora.model-bad-input");
    assertThatThrownBy(() -> trainAction(fresh, 1).option("layers", "3").execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--layers 3")
        .hasMessageContaining(trainShards.toString());
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .train(store.toString(), work.resolve("no-such-shards").toString())
                    .modelDir(fresh.toString())
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no-such-shards");
    assertThat(spark.sparkContext().statusTracker().getJobIdsForGroup("fanout-train"))
        .hasSize(jobsBefore);
    assertThat(fresh).doesNotExist();
  }

  // ---- 5x: evaluate, infer and embeddings of `model` ----

  @Test
  @Order(50)
  void evaluate() {
    EvaluateResult r = Fanout.get(spark).evaluate(store.toString(), model.toString()).execute();
    assertThat(r.accuracy("test")).isBetween(0.0, 1.0);
    List<Row> rows = r.metrics().collectAsList();
    assertThat(rows).extracting(row -> row.<String>getAs("split")).contains("train", "val", "test");
    for (Row row : rows) {
      String split = row.getAs("split");
      if (row.<Long>getAs("total") > 0) {
        assertThat(row.<Double>getAs("accuracy")).isEqualTo(r.accuracy(split));
      }
    }

    // The epoch of best validation accuracy instead of the last one, when asked.
    EvaluateResult best =
        Fanout.get(spark)
            .evaluate(store.toString(), model.toString())
            .option("checkpoint", "best")
            .execute();
    assertThat(best.perSplit())
        .isEqualTo(ModelEvaluation.accuracy(store, model, CheckpointPick.BEST, null, 1024, 0));
    assertThat(r.perSplit())
        .isEqualTo(ModelEvaluation.accuracy(store, model, CheckpointPick.LAST, null, 1024, 0));
  }

  @Test
  @Order(51)
  void inferPredictionsAndEmbeddings() {
    Path predictions = work.resolve("cora.predictions");
    Path embeddings = work.resolve("cora.embeddings");
    InferResult r =
        Fanout.get(spark)
            .infer(store.toString(), model.toString())
            .output(predictions.toString())
            .embeddings(embeddings.toString())
            .execute();
    assertThat(r.skipped()).isFalse();
    assertThat(r.predictions().count()).isEqualTo(2708L);
    Dataset<Row> emb = r.embeddings();
    assertThat(emb.count()).isEqualTo(2708L);
    Row first = emb.first();
    assertThat(first.getList(first.fieldIndex("embedding"))).hasSize(16);
    // the same ids as the predictions, the original ones of the input table
    assertThat(emb.select("id").except(r.predictions().select("id")).count()).isZero();
    Dataset<Row> input =
        spark
            .read()
            .parquet(SparkTestSession.dataset("cora").resolve("vertices.parquet").toString());
    assertThat(emb.select("id").except(input.select("id")).count()).isZero();

    InferResult again =
        Fanout.get(spark)
            .infer(store.toString(), model.toString())
            .output(predictions.toString())
            .embeddings(embeddings.toString())
            .execute();
    assertThat(again.skipped()).isTrue();
  }

  // ---- 6x: cancellation ----

  @Test
  @Order(60)
  void cancellingTheDefaultGroupStopsTrainingAndTheSessionGoesOn() throws Exception {
    cancelRunningTrain(null, "fanout-train", work.resolve("cancelled.model"), 1);
  }

  @Test
  @Order(61)
  void cancellingTheCallersOwnGroupStopsTrainingWithoutInterrupts() throws Exception {
    cancelRunningTrain(
        "notebook-cell-7", "notebook-cell-7", work.resolve("cancelled-own.model"), 1);
  }

  @Test
  @Order(62)
  void cancellingDataParallelTrainingStopsEveryWorker() throws Exception {
    cancelRunningTrain(null, "fanout-train", work.resolve("cancelled-2.model"), 2);
  }

  /**
   * Starts a long {@code train} on {@code workers} workers on another thread (in job group {@code
   * callerGroup}, or none), waits until its first checkpoint is there, cancels {@code cancelGroup}
   * and checks that the call fails promptly, the model dir holds a complete checkpoint, no Fanout
   * thread is left, and training can resume on the same session.
   */
  static void cancelRunningTrain(String callerGroup, String cancelGroup, Path dir, int workers)
      throws Exception {
    ExecutorService caller = Executors.newSingleThreadExecutor(r -> new Thread(r, "notebook-cell"));
    try {
      Future<TrainResult> running =
          caller.submit(
              () -> {
                if (callerGroup != null) {
                  spark.sparkContext().setJobGroup(callerGroup, "a notebook cell", false);
                }
                try {
                  return trainAction(dir, 100_000).workers(workers).execute();
                } finally {
                  spark.sparkContext().clearJobGroup();
                }
              });
      waitFor(() -> Checkpoint.exists(dir) || running.isDone(), "the first checkpoint");
      assertThat(running.isDone()).as("train ended before it was cancelled").isFalse();

      spark.sparkContext().cancelJobGroup(cancelGroup);

      assertThatThrownBy(() -> running.get(WAIT_MILLIS, TimeUnit.MILLISECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(FanoutCancelledException.class)
          .hasMessageContaining("train cancelled (job group " + cancelGroup + ")");
    } finally {
      caller.shutdownNow();
      assertThat(caller.awaitTermination(WAIT_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
    }

    // Only complete, readable checkpoints; no temporary files.
    List<String> names;
    try (Stream<Path> files = Files.list(dir)) {
      names = files.map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertThat(names)
        .contains(Checkpoint.FILE)
        .allMatch(
            n ->
                n.equals(Checkpoint.FILE) || n.equals(Checkpoint.BEST) || n.equals("metrics.jsonl"),
            "a checkpoint or the metrics");
    for (String n : names) {
      if (n.endsWith(".bin")) {
        assertThat(Checkpoint.read(dir, n).params()).isNotEmpty();
      }
    }
    int epochs = Checkpoint.read(dir).epochs();
    assertThat(epochs).isBetween(1, 99_999);
    assertNoFanoutThreads();

    // The session goes on: resume the cancelled run for one more epoch.
    TrainResult resumed = trainAction(dir, epochs + 1).workers(workers).resume(true).execute();
    assertThat(resumed.epochsRun()).isEqualTo(1);
    assertThat(resumed.workers()).isEqualTo(workers);
    assertThat(Checkpoint.read(dir).epochs()).isEqualTo(epochs + 1);
    assertThat(resumed.metrics().count()).isEqualTo(epochs + 1);
  }

  // ---- 9x: hygiene ----

  @Test
  @Order(90)
  void theSessionAndTheJvmAreAsFanoutFoundThem() throws IOException {
    assertThat(spark.sparkContext().isStopped()).isFalse();
    assertThat(conf()).isEqualTo(confBefore);
    assertThat(labels()).isEqualTo(labelsBefore);
    assertThat(System.getProperties()).isEqualTo(systemBefore);
    assertThat(Locale.getDefault()).isEqualTo(localeBefore);
    assertThat(TimeZone.getDefault()).isEqualTo(zoneBefore);
    assertNoFanoutThreads();
    assertNoOpenFilesUnder(work);
  }

  /** No thread named {@code fanout...} is alive (idle pool threads exit within a second). */
  static void assertNoFanoutThreads() {
    waitFor(() -> fanoutThreads().isEmpty(), "Fanout's threads to end");
  }

  static List<String> fanoutThreads() {
    List<String> names = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith("fanout")) {
        names.add(t.getName());
      }
    }
    return names;
  }

  static void assertNoOpenFilesUnder(Path dir) throws IOException {
    Path fds = Path.of("/proc/self/fd");
    assumeThat(Files.isDirectory(fds)).as("/proc/self/fd").isTrue();
    Path root = dir.toRealPath();
    List<String> open = new ArrayList<>();
    try (Stream<Path> links = Files.list(fds)) {
      for (Path fd : (Iterable<Path>) links::iterator) {
        try {
          Path target = Files.readSymbolicLink(fd);
          if (target.startsWith(root)) {
            open.add(target.toString());
          }
        } catch (IOException e) {
          // closed meanwhile (e.g. the directory stream's own descriptor)
        }
      }
    }
    assertThat(open).as("files open under " + root).isEmpty();
  }

  static void waitFor(java.util.function.BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "gave up waiting for " + what + "; fanout threads: " + fanoutThreads());
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }

  /** Every regular file under {@code dir} with the SHA-256 of its bytes. */
  static Map<Path, String> contents(Path dir) throws IOException {
    Map<Path, String> out = new TreeMap<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        try {
          out.put(
              dir.relativize(f),
              HexFormat.of()
                  .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f))));
        } catch (NoSuchAlgorithmException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return out;
  }
}
