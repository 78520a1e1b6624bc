package io.fanout.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.nn.typed.HgnSettings;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.spark.EvaluateResult;
import io.fanout.spark.Fanout;
import io.fanout.spark.FanoutCancelledException;
import io.fanout.spark.TrainAction;
import io.fanout.spark.TrainResult;
import io.fanout.spark.internal.Hooks;
import io.fanout.spark.sample.TypedStoreOpener;
import io.fanout.store.Checksums;
import io.fanout.store.StoreLayout;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import io.fanout.train.typed.TypedCheckpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sample, train, evaluate and infer on a generated typed graph (through the typed store opener
 * seam) whose labels depend on a typed two-hop path: target {@code T <-r1- A <-r2- B}, beside a
 * decoy path {@code T <-r3- C <-r4- D} of the same shape and feature distribution. R-GCN reaches
 * the floor; the same graph with its types and relations merged into one stays below it, and two
 * data-parallel workers reach it too, with the same model bytes each run. Shards with inline f32
 * features train the checkpoint bytes of shards without. Options not built for typed stores are
 * refused with one line.
 */
class TypedTrainJobTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedTrainJobTest");
    spark.conf().set(Hooks.TYPED_STORE_OPENER, PathGraphOpener.class.getName());
  }

  @AfterAll
  static void stop() {
    spark.conf().unset(Hooks.TYPED_STORE_OPENER);
    spark.stop();
  }

  private static Path store(String name, String content) throws IOException {
    Path s = tmp.resolve(name);
    Files.createDirectories(s);
    Files.writeString(s.resolve(PathGraphOpener.MARKER), content);
    return s;
  }

  private static Path sample(Path store, String name) {
    return sample(store, name, "train");
  }

  private static final java.util.Map<String, Path> SHARED = new java.util.HashMap<>();

  /**
   * The store of marker {@code content} and its shards of {@code split} (the defaults of {@link
   * #sample}), made once for the tests that only read them: e.g. {@code shared("typed:5",
   * "train")}; {@code shared("typed:5", null)} is the store itself.
   */
  private static synchronized Path shared(String content, String split) throws IOException {
    String name = "shared-" + content.replace(':', '-');
    Path s = SHARED.get(name);
    if (s == null) {
      s = store(name + ".store", content);
      SHARED.put(name, s);
    }
    if (split == null) {
      return s;
    }
    Path store = s;
    String key = name + "." + split;
    Path out = SHARED.get(key);
    if (out == null) {
      out = sample(store, key + ".shards", split);
      SHARED.put(key, out);
    }
    return out;
  }

  private static Path sample(Path store, String name, String split, String... more) {
    Path out = tmp.resolve(name);
    var action =
        Fanout.get(spark)
            .sample(store.toString())
            .output(out.toString())
            .option("split", split)
            .option("batch-size", "64")
            .option("fanouts", "*=-1,-1")
            .option("epochs", "1")
            .option("seed", "3");
    for (int i = 0; i < more.length; i += 2) {
      action.option(more[i], more[i + 1]);
    }
    action.execute();
    return out;
  }

  private static TrainAction train(Path store, Path shards, Path modelDir) {
    return Fanout.get(spark)
        .train(store.toString(), shards.toString())
        .option("model-dir", modelDir.toString())
        .option("model", "rgcn")
        .option("hidden", "16")
        .option("dropout", "0")
        .option("lr", "0.01")
        .option("weight-decay", "0")
        .option("feature-norm", "none")
        .option("epochs", "40")
        .option("seed", "1");
  }

  private static double testMicroF1(String content, String name) throws IOException {
    Path store = shared(content, null);
    Path shards = shared(content, "train");
    Path md = tmp.resolve(name + ".model");
    train(store, shards, md).execute();
    EvaluateResult r = Fanout.get(spark).evaluate(store.toString(), md.toString()).execute();
    assertThat(r.toJson()).contains("\"micro_f1\"").contains("\"macro_f1\"");
    return r.microF1("test");
  }

  @Test
  void rgcnLearnsTheTypedPathAndATypeBlindModelDoesNot() throws IOException {
    Path typed = shared("typed:17", null);
    double rgcn = testMicroF1("typed:17", "typed");
    double merged = testMicroF1("blind:17", "blind");
    assertThat(rgcn).as("rgcn").isGreaterThanOrEqualTo(0.9);
    assertThat(merged).as("one type, one relation").isLessThan(0.82);

    Path pred = tmp.resolve("pred");
    Path emb = tmp.resolve("emb");
    Fanout.get(spark)
        .infer(typed.toString(), tmp.resolve("typed.model").toString())
        .output(pred.toString())
        .embeddings(emb.toString())
        .execute();
    Dataset<Row> p = spark.read().parquet(pred.toString());
    assertThat(p.columns())
        .containsExactly("type", "id", "dense_id", "prediction", "probabilities");
    assertThat(p.count()).isEqualTo(PathGraphOpener.N);
    assertThat(p.select("type").distinct().collectAsList())
        .extracting(r -> r.getString(0))
        .containsExactly("T");
    Dataset<Row> e = spark.read().parquet(emb.toString());
    assertThat(e.columns()).containsExactly("type", "id", "dense_id", "embedding");
    Row first = e.orderBy("dense_id").first();
    assertThat(first.getList(3)).hasSize(16);
  }

  @Test
  void hgnLearnsTheTypedPath() throws IOException {
    Path typed = shared("typed:17", null);
    Path shards = shared("typed:17", "train");
    Path md = tmp.resolve("hgn.model");
    train(typed, shards, md)
        .option("model", "hgn")
        .option("heads", "2")
        .option("attn-dropout", "0")
        .option("lr", "0.005")
        .execute();
    EvaluateResult r = Fanout.get(spark).evaluate(typed.toString(), md.toString()).execute();
    assertThat(r.microF1("test")).as("hgn").isGreaterThanOrEqualTo(0.9);
    Path emb = tmp.resolve("hgn.emb");
    Fanout.get(spark)
        .infer(typed.toString(), md.toString())
        .output(tmp.resolve("hgn.pred").toString())
        .embeddings(emb.toString())
        .execute();
    // the last hidden layer: 2 heads of --hidden 16, concatenated
    Row first = spark.read().parquet(emb.toString()).orderBy("dense_id").first();
    assertThat(first.getList(3)).hasSize(32);
  }

  @Test
  @Tag("slow") // two runs of a barrier stage: about 20 s on a loaded 2-core machine
  void twoWorkersLearnTheTypedPathAndRepeatTheModelBitForBit() throws IOException {
    Path typed = shared("typed:17", null);
    Path shards = shared("typed:17", "train");
    byte[] first = null;
    for (String run : new String[] {"a", "b"}) {
      Path md = tmp.resolve("workers." + run + ".model");
      String json =
          train(typed, shards, md)
              .option("workers", "2")
              .option("dist-verify", "true")
              .option("epochs", "30")
              .execute()
              .toJson();
      assertThat(json).contains("\"workers\":2");
      byte[] ck = Files.readAllBytes(md.resolve("checkpoint.bin"));
      if (first == null) {
        first = ck;
        EvaluateResult r = Fanout.get(spark).evaluate(typed.toString(), md.toString()).execute();
        System.out.println("rgcn on 2 workers: test micro-F1 " + r.microF1("test"));
        assertThat(r.microF1("test")).as("rgcn on 2 workers").isGreaterThanOrEqualTo(0.9);
      } else {
        assertThat(ck).as("the second run's checkpoint").isEqualTo(first);
      }
    }
  }

  @Test
  void theLoaderThreadsAndPrefetchKeepTheModelBitForBitWithAScheduleAndValShards()
      throws IOException {
    Path s = shared("typed:5", null);
    Path shards = shared("typed:5", "train");
    Path val = shared("typed:5", "val");
    byte[] first = null;
    for (String[] threadsPrefetch : new String[][] {{"1", "1"}, {"3", "4"}}) {
      Path md = tmp.resolve("loader." + String.join("-", threadsPrefetch) + ".model");
      train(s, shards, md)
          .option("epochs", "3")
          .option("schedule", "cosine")
          .option("val-shards", val.toString())
          .option("loader-threads", threadsPrefetch[0])
          .option("prefetch", threadsPrefetch[1])
          .execute();
      byte[] ck = Files.readAllBytes(md.resolve("checkpoint.bin"));
      if (first == null) {
        first = ck;
      } else {
        assertThat(ck).as("loader-threads 3, prefetch 4").isEqualTo(first);
      }
    }
    assertThatThrownBy(
            () -> train(s, shards, tmp.resolve("loader.bad")).option("prefetch", "0").execute())
        .hasMessageContaining("prefetch");
  }

  @Test
  void hotReuseKeepsTheModelBitForBitOverLoaderThreadsAndReuseZeroIsTrainingWithoutIt()
      throws IOException {
    Path s = shared("typed:5", null);
    Path shards = shared("typed:5", "train");
    byte[] first = null;
    for (String[] threadsPrefetch : new String[][] {{"1", "1"}, {"3", "4"}}) {
      Path md = tmp.resolve("reuse." + String.join("-", threadsPrefetch) + ".model");
      train(s, shards, md)
          .option("epochs", "3")
          .option("dropout", "0.2")
          .option("reuse-hot", "0.3")
          .option("staleness", "2")
          .option("hot-by", "in-degree")
          .option("loader-threads", threadsPrefetch[0])
          .option("prefetch", threadsPrefetch[1])
          .execute();
      byte[] ck = Files.readAllBytes(md.resolve("checkpoint.bin"));
      if (first == null) {
        first = ck;
      } else {
        assertThat(ck).as("loader-threads 3, prefetch 4").isEqualTo(first);
      }
    }
    Path plain = tmp.resolve("reuse.plain.model");
    Path zero = tmp.resolve("reuse.zero.model");
    train(s, shards, plain).option("epochs", "3").execute();
    train(s, shards, zero).option("epochs", "3").option("reuse-hot", "0").execute();
    assertThat(Files.readAllBytes(zero.resolve("checkpoint.bin")))
        .isEqualTo(Files.readAllBytes(plain.resolve("checkpoint.bin")))
        .isNotEqualTo(first);
  }

  @Test
  void overlappedRefreshesKeepTheModelBitForBitOverLoaderThreadsAndAreInTheIdentity()
      throws IOException {
    Path s = shared("typed:5", null);
    Path shards = shared("typed:5", "train");
    byte[] first = null;
    for (String[] threadsPrefetch : new String[][] {{"1", "1"}, {"3", "4"}}) {
      Path md = tmp.resolve("overlapped." + String.join("-", threadsPrefetch) + ".model");
      train(s, shards, md)
          .option("epochs", "2")
          .option("dropout", "0.2")
          .option("reuse-hot", "0.3")
          .option("staleness", "3")
          .option("reuse-refresh", "overlapped")
          .option("loader-threads", threadsPrefetch[0])
          .option("prefetch", threadsPrefetch[1])
          .execute();
      byte[] ck = Files.readAllBytes(md.resolve("checkpoint.bin"));
      assertThat(TypedCheckpoint.read(md, Checkpoint.FILE).checkpoint().meta())
          .containsEntry("identity.reuse_refresh", "overlapped");
      if (first == null) {
        first = ck;
      } else {
        assertThat(ck).as("loader-threads 3, prefetch 4").isEqualTo(first);
      }
    }
    Path inline = tmp.resolve("overlapped.inline.model");
    train(s, shards, inline)
        .option("epochs", "2")
        .option("dropout", "0.2")
        .option("reuse-hot", "0.3")
        .option("staleness", "3")
        .execute();
    assertThat(Files.readAllBytes(inline.resolve("checkpoint.bin")))
        .as("another schedule, another model")
        .isNotEqualTo(first);
  }

  @Test
  void inlineF32FeaturesTrainTheModelBitsOfGatheringFromTheStore() throws IOException {
    Path s = store("inline.store", "typed:5");
    byte[] first = null;
    for (String features : new String[] {"none", "f32"}) {
      Path shards = sample(s, "inline." + features + ".shards", "train", "features", features);
      Path val = sample(s, "inline." + features + ".val-shards", "val", "features", features);
      Path md = tmp.resolve("inline." + features + ".model");
      train(s, shards, md).option("epochs", "3").option("val-shards", val.toString()).execute();
      byte[] ck = Files.readAllBytes(md.resolve("checkpoint.bin"));
      if (first == null) {
        first = ck;
      } else {
        assertThat(ck).as("--features f32").isEqualTo(first);
      }
    }
    Path inline = tmp.resolve("inline.f32.shards");
    assertThatThrownBy(
            () ->
                train(s, inline, tmp.resolve("inline.embedded"))
                    .option("learned-embeddings", "all")
                    .execute())
        .hasMessageContaining("--learned-embeddings")
        .hasMessageContaining("inline its feature rows");
    // hot reuse prunes the inline rows with the batch: the model of reuse over the store's rows
    byte[] reused = null;
    for (String features : new String[] {"none", "f32"}) {
      Path md = tmp.resolve("inline." + features + ".reused");
      train(s, tmp.resolve("inline." + features + ".shards"), md)
          .option("epochs", "2")
          .option("reuse-hot", "0.3")
          .option("staleness", "1")
          .execute();
      byte[] ck = Files.readAllBytes(md.resolve("checkpoint.bin"));
      if (reused == null) {
        reused = ck;
      } else {
        assertThat(ck).as("--reuse-hot over --features f32").isEqualTo(reused);
      }
    }
    // the rows come with every batch: a cache over them has nothing to read or hold
    assertThatThrownBy(
            () ->
                train(s, inline, tmp.resolve("inline.cached"))
                    .option("feature-cache", "lru")
                    .option("feature-cache-bytes", "4096")
                    .execute())
        .hasMessageContaining("train --feature-cache lru reads feature rows from the store's files")
        .hasMessageContaining("inline them (sample --features f32)")
        .hasMessageContaining("there is nothing to cache")
        .hasMessageNotContaining("\n");
  }

  @Test
  void cancellingTheCallersJobGroupStopsTypedTraining() throws Exception {
    Path s = shared("typed:5", null);
    Path shards = shared("typed:5", "train");
    Path md = tmp.resolve("cancel.model");
    String group = "typed-train-cell";
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      Future<?> running =
          caller.submit(
              () -> {
                spark.sparkContext().setJobGroup(group, "a notebook cell", false);
                try {
                  return train(s, shards, md).option("epochs", "100000").execute();
                } finally {
                  spark.sparkContext().clearJobGroup();
                }
              });
      // a cancel reaches the jobs running when it is called, so repeat it until the call ends
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!running.isDone() && System.nanoTime() < deadline) {
        spark.sparkContext().cancelJobGroup(group);
        Thread.sleep(10);
      }
      assertThatThrownBy(() -> running.get(60, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(FanoutCancelledException.class)
          .hasMessageStartingWith("train cancelled (");
    } finally {
      caller.shutdownNow();
    }
  }

  @Test
  void aResumedRunContinuesTheCheckpointAndEndsWhereOneRunEnds() throws IOException {
    Path s = shared("typed:5", null);
    Path shards = shared("typed:5", "train");
    Path once = tmp.resolve("resume-once.model");
    train(s, shards, once).option("epochs", "3").execute();
    Path twice = tmp.resolve("resume-twice.model");
    train(s, shards, twice).option("epochs", "2").execute();
    train(s, shards, twice).option("epochs", "3").option("resume", "true").execute();
    assertThat(Files.readAllBytes(twice.resolve("checkpoint.bin")))
        .isEqualTo(Files.readAllBytes(once.resolve("checkpoint.bin")));
  }

  @Test
  void earlyStoppingEndsWhereTheMetricsSayAndTheSameRequestThenSkips() throws IOException {
    Path s = shared("typed:5", null);
    Path shards = shared("typed:5", "train");
    Path md = tmp.resolve("early.model");
    TrainResult r = train(s, shards, md).option("early-stop", "1").execute();
    List<String> lines = Files.readAllLines(md.resolve("metrics.jsonl"));
    double[] f1 = new double[lines.size()];
    for (int e = 0; e < f1.length; e++) {
      f1[e] = JSON.readTree(lines.get(e)).get("val_micro_f1").asDouble();
    }
    // patience 1: every epoch but the last brought a better Micro-F1, the last did not
    int stop = f1.length - 1;
    assertThat(stop).as("the run stops before its 40th epoch").isBetween(1, 38);
    for (int e = 1; e < stop; e++) {
      assertThat(f1[e]).as("epoch " + (e + 1)).isGreaterThan(f1[e - 1]);
    }
    assertThat(f1[stop]).isLessThanOrEqualTo(f1[stop - 1]);
    JsonNode last = JSON.readTree(lines.get(stop));
    assertThat(last.get("stopped_early").asBoolean()).isTrue();
    assertThat(last.get("best_epoch").asInt()).isEqualTo(stop); // 1-based: the epoch before
    assertThat(r.epochsRun()).isEqualTo(stop + 1);
    // the printed result says so as metrics.jsonl does
    assertThat(r.stoppedEarly()).isTrue();
    assertThat(r.bestEpoch()).isEqualTo(stop);
    assertThat(r.toJson())
        .contains("\"epochs_run\":" + (stop + 1) + ",")
        .contains(",\"stopped_early\":true,\"best_epoch\":" + stop);
    assertThat(TypedCheckpoint.read(md, Checkpoint.BEST).checkpoint().epochs()).isEqualTo(stop);
    TrainResult again = train(s, shards, md).option("early-stop", "1").execute();
    assertThat(again.skipped()).as("a run that stopped early is complete").isTrue();
    assertThat(again.stoppedEarly()).isTrue();
    assertThat(again.bestEpoch()).isEqualTo(stop);
    assertThat(Files.readAllLines(md.resolve("metrics.jsonl"))).isEqualTo(lines);
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void hgnTrainsWithItsOwnAttentionDefaultsNotGats() throws IOException {
    Path s = shared("typed:5", null);
    Path shards = shared("typed:5", "train");
    Path md = tmp.resolve("hgn-defaults.model");
    train(s, shards, md).option("model", "hgn").option("epochs", "1").execute();
    assertThat(TypedCheckpoint.read(md, Checkpoint.FILE).config().hgn())
        .isEqualTo(HgnSettings.DEFAULT);
    train(s, shards, md).option("model", "hgn").option("epochs", "2").resume(true).execute();
    // HGB's settings on ACM: input projections wider than a head, and only the target's features
    Path wide = tmp.resolve("hgn-wide.model");
    train(s, shards, wide)
        .option("model", "hgn")
        .option("epochs", "1")
        .option("input-width", "12")
        .option("learned-embeddings", "non-target")
        .execute();
    TypedModelConfig cfg = TypedCheckpoint.read(wide, Checkpoint.FILE).config();
    assertThat(cfg.hgn()).isEqualTo(HgnSettings.DEFAULT.withInputWidth(12));
    assertThat(cfg.inputWidth()).isEqualTo(12);
    for (int t = 0; t < cfg.types().size(); t++) {
      assertThat(cfg.type(t).embedded()).as(cfg.type(t).name()).isEqualTo(t != cfg.target());
    }
  }

  @Test
  void optionsNotBuiltForTypedStoresAreRefusedWithOneLine() throws IOException {
    Path s = shared("typed:5", null);
    Path shards = shared("typed:5", "train");
    Path md = tmp.resolve("refused.model");
    // the feature cache is built for typed stores, with the one-type checks of its options ...
    assertThatThrownBy(() -> train(s, shards, md).option("feature-cache", "lru").execute())
        .hasMessageContaining("option 'feature-cache' of train is lru but 'feature-cache-bytes'");
    // ... and reads a store's feature files, which a graph held in memory has not
    assertThatThrownBy(
            () ->
                train(s, shards, md)
                    .option("feature-cache", "lru")
                    .option("feature-cache-bytes", "4096")
                    .execute())
        .hasMessageContaining("--feature-cache reads the feature files of a typed graph store");
    assertThatThrownBy(() -> train(s, shards, md).option("feature-access", "zero-copy").execute())
        .hasMessageContaining("train --feature-access zero-copy: the graph is not a typed store");
    assertThatThrownBy(() -> train(s, shards, md).option("model", "sage").execute())
        .hasMessageContaining("train --model sage is not built for typed stores");
    assertThatThrownBy(() -> train(s, shards, md).option("heads", "2").execute())
        .hasMessageContaining("train --heads is not built for --model rgcn");
    assertThatThrownBy(() -> train(s, shards, md).option("attn-residual", "0.3").execute())
        .hasMessageContaining("train --attn-residual is not built for --model rgcn");
    assertThatThrownBy(() -> train(s, shards, md).option("input-width", "16").execute())
        .hasMessageContaining("train --input-width is not built for --model rgcn");
    // --precision is built: the CPU backend refuses tf32 with the one-type line
    assertThatThrownBy(() -> train(s, shards, md).option("precision", "tf32").execute())
        .hasMessageContaining("--precision tf32 needs the cuda backend with cuBLAS")
        .hasMessageContaining("(pass --precision fp32)");
    assertThat(Files.exists(md.resolve("checkpoint.bin"))).isFalse();
  }

  /**
   * A typed "store" that is a directory with a marker file {@code typed:SEED} (five types, four
   * relations) or {@code blind:SEED} (the same vertices and edges as one type and one relation).
   */
  public static final class PathGraphOpener implements TypedStoreOpener {
    static final String MARKER = "typed-path-graph";
    static final int N = 400;
    static final int DEG = 3;

    @Override
    public boolean isTyped(Path store) {
      return Files.isRegularFile(store.resolve(MARKER));
    }

    @Override
    public TypedGraph open(Path store, boolean verify) {
      try {
        String[] m = Files.readString(store.resolve(MARKER)).trim().split(":");
        return graph(m[0].equals("blind"), Long.parseLong(m[1]));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public String fingerprint(Path store) {
      try {
        return Checksums.sha256(Files.readString(store.resolve(MARKER)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    static int[][] edges(SplittableRandom r) {
      int[] src = new int[N * DEG];
      int[] dst = new int[N * DEG];
      for (int i = 0; i < src.length; i++) {
        dst[i] = i / DEG;
        src[i] = r.nextInt(N);
      }
      return new int[][] {src, dst};
    }

    static ArrayTypedGraph graph(boolean blind, long seed) {
      SplittableRandom r = new SplittableRandom(seed);
      int[][][] rel = {
        edges(r), edges(r), edges(r), edges(r)
      }; // r1 A->T, r2 B->A, r3 C->T, r4 D->C
      float[] xb = new float[N];
      float[] xd = new float[N];
      for (int i = 0; i < N; i++) {
        xb[i] = (float) (2 * r.nextDouble() - 1);
        xd[i] = (float) (2 * r.nextDouble() - 1);
      }
      double[] meanA = new double[N];
      for (int i = 0; i < rel[1][0].length; i++) {
        meanA[rel[1][1][i]] += xb[rel[1][0][i]] / DEG;
      }
      double[] score = new double[N];
      for (int i = 0; i < rel[0][0].length; i++) {
        score[rel[0][1][i]] += meanA[rel[0][0][i]] / DEG;
      }
      int[] labels = new int[N];
      byte[] splits = new byte[N];
      for (int i = 0; i < N; i++) {
        labels[i] = score[i] > 0 ? 1 : 0;
        double u = r.nextDouble();
        splits[i] =
            u < 0.6
                ? StoreLayout.SPLIT_TRAIN
                : u < 0.8 ? StoreLayout.SPLIT_VAL : StoreLayout.SPLIT_TEST;
      }
      float[] ones = new float[N];
      Arrays.fill(ones, 1f);
      if (!blind) {
        return ArrayTypedGraph.builder()
            .type("T", N, 1, ones, labels, splits)
            .type("A", N, 1, ones, null, null)
            .type("B", N, 1, xb, null, null)
            .type("C", N, 1, ones, null, null)
            .type("D", N, 1, xd, null, null)
            .relation("r1", "A", "T", rel[0][0], rel[0][1])
            .relation("r2", "B", "A", rel[1][0], rel[1][1])
            .relation("r3", "C", "T", rel[2][0], rel[2][1])
            .relation("r4", "D", "C", rel[3][0], rel[3][1])
            .build();
      }
      float[] x = new float[5 * N];
      Arrays.fill(x, 1f);
      System.arraycopy(xb, 0, x, 2 * N, N);
      System.arraycopy(xd, 0, x, 4 * N, N);
      int[] l = new int[5 * N];
      byte[] s = new byte[5 * N];
      Arrays.fill(l, -1);
      System.arraycopy(labels, 0, l, 0, N);
      System.arraycopy(splits, 0, s, 0, N);
      int[] srcBase = {N, 2 * N, 3 * N, 4 * N};
      int[] dstBase = {0, N, 0, 3 * N};
      int[] src = new int[4 * N * DEG];
      int[] dst = new int[4 * N * DEG];
      int e = 0;
      for (int k = 0; k < 4; k++) {
        for (int i = 0; i < rel[k][0].length; i++, e++) {
          src[e] = srcBase[k] + rel[k][0][i];
          dst[e] = dstBase[k] + rel[k][1][i];
        }
      }
      // a second, empty relation keeps it a typed store (one type and one relation is one-type)
      return ArrayTypedGraph.builder()
          .type("v", 5 * N, 1, x, l, s)
          .relation("all", "v", "v", src, dst)
          .relation("none", "v", "v", new int[0], new int[0])
          .build();
    }
  }
}
