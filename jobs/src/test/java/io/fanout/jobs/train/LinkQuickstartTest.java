package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import io.fanout.graph.GraphStore;
import io.fanout.spark.Fanout;
import io.fanout.store.StoreLayout;
import io.fanout.testing.JobDescriptions;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import io.fanout.train.LinkMetrics;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Link prediction on the bundled cora. {@code bin/fanout quickstart --task link}, shortened to a
 * few epochs: the pipeline runs through the CLI, ends with the test AUC, and {@code evaluate} reads
 * the task from the model dir. Then, on the store the quickstart prepared: {@code train --decoder
 * mlp} learns (test AUC well above the 0.5 of an untrained model) and records its decoder, {@code
 * infer --task link --pairs} scores the store's own test pairs given by original ids exactly as
 * {@code evaluate} does, and {@code train --workers 2} trains a link model with bit-identical
 * replicas.
 */
class LinkQuickstartTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path work;
  static Result quickstart;
  static Path store;
  static Path shards;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void fixtures() {
    spark = SparkTestSession.start("LinkQuickstartTest");
    work = tmp.resolve("work");
    quickstart =
        cli("quickstart", "--task", "link", "--epochs", "3", "--work-dir", work.toString());
    assertThat(quickstart.code()).as(quickstart.err()).isZero();
    store = work.resolve("store-link");
    shards = tmp.resolve("shards");
    Fanout f = Fanout.get(spark);
    f.sample(store.toString())
        .output(shards.toString())
        .option("task", "link")
        .fanouts(new int[] {10, 5})
        .batchSize(256)
        .epochs(4)
        .seed(1)
        .progress(new PrintStream(OutputStream.nullOutputStream()))
        .execute();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void coraLinkPredictionEndsWithTheTestAuc() throws Exception {
    assertThat(quickstart.err()).contains("test AUC:");
    JsonNode j = quickstart.json();
    assertThat(j.get("task").asText()).isEqualTo("link");
    // an untrained or leaking model scores about 0.5 on the fixed negatives
    assertThat(j.get("test_auc").asDouble()).isGreaterThan(0.75);
    String model = j.get("model_dir").asText();
    Result ev = cli("evaluate", "--graph", store.toString(), "--model-dir", model);
    assertThat(ev.code()).as(ev.err()).isZero();
    JsonNode e = ev.json();
    assertThat(e.get("task").asText()).isEqualTo("link");
    assertThat(e.get("test").get("auc").asDouble())
        .isCloseTo(j.get("test_auc").asDouble(), within(1e-4));
    assertThat(e.get("test").get("positives").asLong()).isPositive();
    assertThat(e.get("test").get("negatives").asLong())
        .isEqualTo(e.get("test").get("positives").asLong());
    Result sampled =
        cli(
            "evaluate",
            "--graph",
            store.toString(),
            "--model-dir",
            model,
            "--neighbors",
            "sampled");
    assertThat(sampled.code()).isEqualTo(2);
    assertThat(sampled.err()).contains("link-prediction model runs full-neighbor inference");
  }

  static Result train(Path md, String... extra) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "train",
                "--graph",
                store.toString(),
                "--shards",
                shards.toString(),
                "--model-dir",
                md.toString(),
                "--hidden",
                "64",
                "--log-every",
                "0"));
    a.addAll(List.of(extra));
    return cli(a.toArray(new String[0]));
  }

  static JsonNode evaluate(Path md) throws Exception {
    Result ev = cli("evaluate", "--graph", store.toString(), "--model-dir", md.toString());
    assertThat(ev.code()).as(ev.err()).isZero();
    return JSON.readTree(ev.out());
  }

  @Tag("slow")
  @Test
  void mlpDecoderTrainsAndScoresCandidatePairsByOriginalIds() throws Exception {
    // also: every Spark job of infer --pairs is labelled (docs/developing.md)
    Path md = tmp.resolve("mlp");
    Result t = train(md, "--decoder", "mlp", "--lr", "0.01", "--epochs", "8");
    assertThat(t.code()).as(t.err()).isZero();
    assertThat(Checkpoint.read(md).meta()).containsEntry("model.decoder", "mlp");
    JsonNode e = evaluate(md);
    double auc = e.get("test").get("auc").asDouble();
    System.out.println("mlp decoder, 8 epochs: test AUC " + auc);
    // 0.7805 and 0.7625 on two BLAS summation orders: the floor says "learns", with margin
    assertThat(auc).isGreaterThan(0.7);

    // the store's test pairs and negatives, by original ids, as a CSV table
    Path csv = tmp.resolve("pairs.csv");
    List<Row> rows = testPairs("src", "dst", "label", "src_dense");
    StringBuilder sb = new StringBuilder("label,a,b\n");
    for (Row r : rows) {
      sb.append(r.getInt(2)).append(',').append(r.get(0)).append(',').append(r.get(1)).append('\n');
    }
    Files.writeString(csv, sb);
    Path out = tmp.resolve("scores");
    String[] infer = {
      "infer",
      "--graph",
      store.toString(),
      "--model-dir",
      md.toString(),
      "--task",
      "link",
      "--pairs",
      csv.toString(),
      "--pairs-format",
      "csv",
      "--src-column",
      "a",
      "--dst-column",
      "b",
      "--output",
      out.toString()
    };
    Result inf;
    List<String> labels;
    try (JobDescriptions jobs = JobDescriptions.record(spark)) {
      inf = cli(infer);
      labels = jobs.seen();
    }
    assertThat(inf.code()).as(inf.err()).isZero();
    assertThat(labels)
        .contains("fanout infer: inference on the driver (1/1)")
        .containsOnly(
            "fanout infer: read the candidate pairs (1/1)",
            "fanout infer: inference on the driver (1/1)");
    JsonNode ij = JSON.readTree(inf.out());
    assertThat(ij.get("task").asText()).isEqualTo("link");
    assertThat(ij.get("rows").asLong()).isEqualTo(rows.size());
    assertThat(ij.get("skipped").asBoolean()).isFalse();
    List<Row> scored = spark.read().parquet(out.toString()).collectAsList();
    assertThat(scored).hasSize(rows.size());
    int[] src = new int[rows.size()];
    int[] label = new int[rows.size()];
    float[] score = new float[rows.size()];
    for (int i = 0; i < rows.size(); i++) {
      Row in = rows.get(i);
      Row o = scored.get(i);
      assertThat(o.get(0)).as("row %d src", i).isEqualTo(in.get(0));
      assertThat(o.get(1)).as("row %d dst", i).isEqualTo(in.get(1));
      src[i] = in.getInt(3);
      label[i] = in.getInt(2);
      score[i] = o.getFloat(2);
    }
    // the same pairs, the same decoder, the same embeddings as evaluate (which prints 6 digits)
    assertThat(auc(src, label, score)).isCloseTo(auc, within(1e-6));
    assertThat(JSON.readTree(cli(infer).out()).get("skipped").asBoolean()).isTrue();

    Files.writeString(csv, sb.append("1,").append(rows.get(0).get(0)).append(",987654321\n"));
    Path bad = tmp.resolve("bad-scores");
    infer[infer.length - 1] = bad.toString();
    Result unknown = cli(infer);
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err())
        .contains("pairs table " + csv)
        .contains("column 'b' row " + rows.size())
        .contains("'987654321'")
        .contains("not a vertex id");
    assertThat(bad).doesNotExist();

    Result noTask = infer(md, "--pairs", csv.toString(), "--output", bad.toString());
    assertThat(noTask.code()).isEqualTo(2);
    assertThat(noTask.err()).contains("add --task link");
    Result noOutput = infer(md, "--task", "link", "--pairs", csv.toString());
    assertThat(noOutput.code()).isEqualTo(2);
    assertThat(noOutput.err()).contains("into --output DIR");
    assertThat(bad).doesNotExist();
  }

  /** Columns {@code cols} of the store's test pairs and their negatives, in file order. */
  static List<Row> testPairs(String... cols) {
    try (GraphStore g = GraphStore.open(store, false)) {
      return spark
          .read()
          .parquet(g.dataRoot().resolve(StoreLayout.edgeSplitFile("test")).toString())
          .selectExpr(cols)
          .collectAsList();
    }
  }

  /** {@code infer} of the model in {@code md} on the store, with {@code extra} arguments. */
  static Result infer(Path md, String... extra) {
    List<String> a =
        new ArrayList<>(
            List.of("infer", "--graph", store.toString(), "--model-dir", md.toString()));
    a.addAll(List.of(extra));
    return cli(a.toArray(new String[0]));
  }

  /** The {@link LinkMetrics} AUC of pairs with source {@code src}, label 1 or 0, and score. */
  static double auc(int[] src, int[] label, float[] score) {
    return LinkMetrics.ofLabelled(label.length, src, score, i -> label[i] == 1).auc();
  }

  /**
   * {@code infer --embeddings} of a dot link model: unit rows whose scaled dot products give the
   * test pairs {@code evaluate}'s AUC; {@code infer --output} (class predictions) is refused.
   */
  static void assertExportedEmbeddingsScoreAsEvaluate(Path md, double auc) throws Exception {
    Path embDir = tmp.resolve(md.getFileName() + "-embeddings");
    Result inf = infer(md, "--embeddings", embDir.toString());
    assertThat(inf.code()).as(inf.err()).isZero();
    assertThat(JSON.readTree(inf.out()).get("embedding_dim").asInt()).isEqualTo(64);
    List<Row> embRows = spark.read().parquet(embDir.toString()).collectAsList();
    float[][] z = new float[embRows.size()][];
    for (Row r : embRows) {
      List<Float> e = r.getList(r.fieldIndex("embedding"));
      float[] v = new float[e.size()];
      double ss = 0;
      for (int j = 0; j < v.length; j++) {
        v[j] = e.get(j);
        ss += (double) v[j] * v[j];
      }
      assertThat(Math.sqrt(ss)).isCloseTo(1.0, within(1e-5));
      z[r.getInt(r.fieldIndex("dense_id"))] = v;
    }
    List<Row> test = testPairs("src_dense", "dst_dense", "label");
    int[] src = new int[test.size()];
    int[] label = new int[test.size()];
    float[] score = new float[test.size()];
    for (int i = 0; i < test.size(); i++) {
      Row r = test.get(i);
      float[] u = z[r.getInt(0)];
      float[] v = z[r.getInt(1)];
      float dot = 0;
      for (int j = 0; j < u.length; j++) {
        dot += u[j] * v[j];
      }
      src[i] = r.getInt(0);
      label[i] = r.getInt(2);
      score[i] = 5f * dot;
    }
    assertThat(auc(src, label, score)).isCloseTo(auc, within(1e-4));

    Path preds = tmp.resolve(md.getFileName() + "-predictions");
    Result noClasses = infer(md, "--output", preds.toString());
    assertThat(noClasses.code()).isEqualTo(2);
    assertThat(noClasses.err()).contains("link-prediction model").contains("--task link --pairs");
    assertThat(preds).doesNotExist();
  }

  @Tag("slow")
  @Test
  void dotModelsKeepTheirIdentityAndTrainOnTwoWorkers() throws Exception {
    Path md = tmp.resolve("dot-2");
    Result t = train(md, "--epochs", "4", "--lr", "0.01", "--workers", "2", "--dist-verify");
    assertThat(t.code()).as(t.err()).isZero();
    assertThat(JSON.readTree(t.out()).get("workers").asInt()).isEqualTo(2);
    assertThat(Checkpoint.read(md).meta()).doesNotContainKey("model.decoder");
    double auc = evaluate(md).get("test").get("auc").asDouble();
    System.out.println("dot decoder, 2 workers: test AUC " + auc);
    assertThat(auc).isGreaterThan(0.6);
    assertExportedEmbeddingsScoreAsEvaluate(md, auc);
    Path again = tmp.resolve("dot-2-again");
    Result t2 = train(again, "--epochs", "4", "--lr", "0.01", "--workers", "2");
    assertThat(t2.code()).as(t2.err()).isZero();
    assertThat(Checkpoint.read(again).params()).containsExactly(Checkpoint.read(md).params());
  }
}
