package io.fanout.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.options.SampleOptions;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.GraphStore;
import io.fanout.nn.Block;
import io.fanout.nn.GnnModel;
import io.fanout.spark.sample.SampleJob;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backends;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Accuracy;
import io.fanout.train.Checkpoint;
import io.fanout.train.ModelEvaluation;
import io.fanout.train.TrainRun;
import io.fanout.train.TrainSpec;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Fanout.evaluate} and {@code Fanout.infer} on cora, prepared, sampled and trained briefly
 * (hidden 16) once for the class; plus a 1-layer model, which has no hidden layer to embed.
 */
class InferenceApiTest {
  static final int HIDDEN = 16;
  static SparkSession spark;
  @TempDir static Path tmp;
  static Path store;
  static Path model;
  static Path model1;
  static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

  @BeforeAll
  static void trainOnCora() throws Exception {
    spark = SparkTestSession.start("InferenceApiTest");
    Path ds = SparkTestSession.dataset("cora");
    store = tmp.resolve("store");
    Fanout.get(spark)
        .prepare()
        .option("vertices", ds.resolve("vertices.parquet").toString())
        .option("edges", ds.resolve("edges.parquet").toString())
        .option("undirected", "true")
        .option("dedupe", "true")
        .option("self-loops", "drop")
        .output(store.toString())
        .execute();
    model = train("10,5", 10);
    model1 = train("10", 1);
  }

  static Path train(String fanouts, int epochs) throws Exception {
    String name = fanouts.replace(',', '-');
    Path shards = tmp.resolve("shards-" + name);
    SampleJob.run(
        spark,
        FanoutConf.of(
            "sample",
            SampleOptions.ALL,
            Map.of(
                "graph",
                store.toString(),
                "output",
                shards.toString(),
                "fanouts",
                fanouts,
                "batch-size",
                "64",
                "epochs",
                "1")),
        QUIET);
    Path dir = tmp.resolve("model-" + name);
    TrainRun.train(
        TrainSpec.builder(store, shards, dir)
            .architecture(a -> a.withHidden(HIDDEN))
            .optimization(o -> o.withLr(0.01f).withEpochs(epochs))
            .loading(new TrainSpec.Loading(1, 2))
            .build(),
        QUIET);
    return dir;
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static InferAction infer() {
    return Fanout.get(spark).infer(store.toString(), model.toString());
  }

  @Test
  void evaluateReportsTheTrainersNumbersAsJsonAndDataFrame() throws Exception {
    EvaluateResult full = Fanout.get(spark).evaluate(store.toString(), model.toString()).execute();
    Map<String, Accuracy> expected = ModelEvaluation.accuracy(store, model, null, 1024, 0);
    assertThat(full.perSplit()).isEqualTo(expected);
    assertThat(full.accuracy("test")).isEqualTo(expected.get("test").value()).isGreaterThan(0.5);
    assertThat(full.total("test")).isEqualTo(1000);
    assertThatThrownBy(() -> full.accuracy("nope")).hasMessageContaining("[train, val, test]");

    JsonNode j = new ObjectMapper().readTree(full.toJson());
    assertThat(j.get("mode").asText()).isEqualTo("full");
    assertThat(j.has("fanouts")).isFalse();
    assertThat(j.get("accuracy").get("test").asDouble())
        .isCloseTo(full.accuracy("test"), within(1e-6));
    assertThat(j.get("counts").get("val").asLong()).isEqualTo(500);

    List<Row> rows = full.metrics().orderBy("split").collectAsList();
    assertThat(rows).hasSize(3);
    for (Row r : rows) {
      String split = r.getString(0);
      assertThat(r.getLong(1)).isEqualTo(full.correct(split));
      assertThat(r.getLong(2)).isEqualTo(full.total(split));
      assertThat(r.getDouble(3)).isEqualTo(full.accuracy(split));
      assertThat(r.getString(4)).isEqualTo("full");
      assertThat(r.isNullAt(5)).isTrue();
    }

    EvaluateResult sampled =
        Fanout.get(spark)
            .evaluate(store.toString(), model.toString())
            .option("neighbors", "sampled")
            .option("fanouts", "20,20")
            .execute();
    assertThat(sampled.perSplit())
        .isEqualTo(ModelEvaluation.accuracy(store, model, new int[] {20, 20}, 1024, 0));
    assertThat(new ObjectMapper().readTree(sampled.toJson()).get("fanouts").toString())
        .isEqualTo("[20,20]");
    Row s = sampled.metrics().where("split = 'test'").first();
    assertThat(s.getString(4)).isEqualTo("sampled");
    assertThat(s.getString(5)).isEqualTo("20,20");
  }

  @Test
  void predictionsAndEmbeddingsAreKeyedByTheOriginalIdsAndAgree() throws Exception {
    Path pred = tmp.resolve("pred");
    Path emb = tmp.resolve("emb");
    InferResult r = infer().output(pred.toString()).embeddings(emb.toString()).execute();
    assertThat(r.rows()).isEqualTo(2708);
    assertThat(r.embeddingDim()).isEqualTo(HIDDEN);
    assertThat(r.skipped()).isFalse();
    JsonNode j = new ObjectMapper().readTree(r.toJson());
    assertThat(j.get("output").asText()).isEqualTo(pred.toString());
    assertThat(j.get("embeddings").asText()).isEqualTo(emb.toString());
    assertThat(j.get("embedding_dim").asInt()).isEqualTo(HIDDEN);
    assertThat(j.get("rows").asLong()).isEqualTo(2708);

    Dataset<Row> idmap =
        spark
            .read()
            .parquet(
                io.fanout.store.StoreManifest.read(store)
                    .dataRoot(store)
                    .resolve("idmap")
                    .toString());
    Dataset<Row> predictions = r.predictions();
    Dataset<Row> embeddings = r.embeddings();
    assertThat(predictions.schema().apply("id").dataType())
        .isEqualTo(idmap.schema().apply("id").dataType());
    assertThat(embeddings.schema().apply("id").dataType())
        .isEqualTo(idmap.schema().apply("id").dataType());
    assertThat(((ArrayType) embeddings.schema().apply("embedding").dataType()).elementType())
        .isEqualTo(DataTypes.FloatType);
    assertThat(predictions.count()).isEqualTo(2708);
    assertThat(embeddings.count()).isEqualTo(2708);
    // Every (dense_id, id) pair of the id map, once.
    assertThat(idmap.select("dense_id", "id").except(predictions.select("dense_id", "id")).count())
        .isZero();
    assertThat(idmap.select("dense_id", "id").except(embeddings.select("dense_id", "id")).count())
        .isZero();
    assertThat(predictions.select("id").distinct().count()).isEqualTo(2708);
    assertThat(embeddings.select("id").distinct().count()).isEqualTo(2708);

    // The model's own output layer over the embeddings (and the graph's neighbors) gives the
    // predicted classes.
    GnnModel m = load(model);
    try (GraphStore g = GraphStore.open(store)) {
      int n = g.csr().numVertices();
      float[] h = new float[n * HIDDEN];
      for (Row row : embeddings.select("dense_id", "embedding").collectAsList()) {
        List<Float> e = row.getList(1);
        assertThat(e).hasSize(HIDDEN);
        for (int k = 0; k < HIDDEN; k++) {
          h[row.getInt(0) * HIDDEN + k] = e.get(k);
        }
      }
      float[] logits = m.forwardLayer(m.numLayers() - 1, allVertices(g.csr()), h);
      int classes = m.config().classes();
      int agree = 0;
      for (Row row : predictions.select("dense_id", "prediction").collectAsList()) {
        int v = row.getInt(0);
        assertThat(argmax(logits, v * classes, classes))
            .as("vertex %d", v)
            .isEqualTo(row.getInt(1));
        agree++;
      }
      assertThat(agree).isEqualTo(n);
    }
  }

  @Test
  void sampledEmbeddingsOverAllNeighborsEqualFullOnes() {
    Path full = tmp.resolve("emb-full");
    Path all = tmp.resolve("emb-sampled-all");
    infer().embeddings(full.toString()).execute();
    InferResult s =
        infer()
            .embeddings(all.toString())
            .option("neighbors", "sampled")
            .option("fanouts", "-1,-1")
            .option("batch-size", "500")
            .execute();
    assertThat(s.embeddingDim()).isEqualTo(HIDDEN);
    Map<Integer, List<Float>> expected = new HashMap<>();
    for (Row row : s.embeddings().select("dense_id", "embedding").collectAsList()) {
      expected.put(row.getInt(0), row.getList(1));
    }
    List<Row> rows =
        spark.read().parquet(full.toString()).select("dense_id", "embedding").collectAsList();
    assertThat(rows).hasSize(2708);
    for (Row row : rows) {
      List<Float> f = row.getList(1);
      List<Float> e = expected.get(row.getInt(0));
      for (int k = 0; k < HIDDEN; k++) {
        assertThat(e.get(k)).as("vertex %d", row.getInt(0)).isCloseTo(f.get(k), within(1e-4f));
      }
    }
  }

  @Test
  void twoRunsWriteIdenticalBytesAndARerunSkips() throws Exception {
    Path p1 = tmp.resolve("p1");
    Path e1 = tmp.resolve("e1");
    Path p2 = tmp.resolve("p2");
    Path e2 = tmp.resolve("e2");
    infer().output(p1.toString()).embeddings(e1.toString()).execute();
    infer().output(p2.toString()).embeddings(e2.toString()).execute();
    assertSameFiles(p1, p2);
    assertSameFiles(e1, e2);

    long before = Files.getLastModifiedTime(e1.resolve("_SUCCESS")).toMillis();
    InferResult again = infer().output(p1.toString()).embeddings(e1.toString()).execute();
    assertThat(again.skipped()).isTrue();
    assertThat(again.rows()).isEqualTo(2708);
    assertThat(again.embeddingDim()).isEqualTo(HIDDEN);
    assertThat(Files.getLastModifiedTime(e1.resolve("_SUCCESS")).toMillis()).isEqualTo(before);
    assertSameFiles(e1, e2);

    InferAction other =
        infer().embeddings(e1.toString()).option("neighbors", "sampled").option("fanouts", "5,5");
    assertThatThrownBy(other::execute)
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(e1.toString())
        .hasMessageContaining("embeddings of another request")
        .hasMessageContaining("overwrite");
    assertSameFiles(e1, e2);
    InferResult replaced = other.option("overwrite", "true").execute();
    assertThat(replaced.skipped()).isFalse();
    assertThat(replaced.embeddings().count()).isEqualTo(2708);
    assertThat(Files.readAllBytes(e1.resolve("_SUCCESS")))
        .isNotEqualTo(Files.readAllBytes(e2.resolve("_SUCCESS")));
    try (Stream<Path> s = Files.list(tmp)) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .noneMatch(f -> f.contains(".staging-") || f.contains(".old-"));
    }
  }

  @Test
  void badRequestsFailClearly() {
    Path out = tmp.resolve("bad");
    assertThatThrownBy(() -> infer().execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("output(dir)")
        .hasMessageContaining("embeddings(dir)")
        .hasMessageNotContaining("--");
    assertThatThrownBy(() -> infer().output(out.toString()).embeddings(out.toString()).execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--embeddings " + out + " is the output --output " + out)
        .hasMessageContaining("two outputs must not overlap");
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .infer(store.toString(), model1.toString())
                    .output(out.resolve("p").toString())
                    .embeddings(out.resolve("e").toString())
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("1 layer")
        .hasMessageContaining("no hidden layer");
    assertThat(out).doesNotExist();
    Path missing = tmp.resolve("no-such-model");
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .infer(store.toString(), missing.toString())
                    .output(out.toString())
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no checkpoint in " + missing);
    assertThatThrownBy(
            () -> Fanout.get(spark).evaluate(store.toString(), missing.toString()).execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no checkpoint in " + missing);
    assertThatThrownBy(() -> infer().output(out.toString()).option("outptu", "x").execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("unknown option 'outptu'");
    assertThat(out).doesNotExist();

    // A 1-layer model still predicts; asking a result for what was not written is an error.
    InferResult onlyPred =
        Fanout.get(spark)
            .infer(store.toString(), model1.toString())
            .output(out.toString())
            .execute();
    assertThat(onlyPred.predictions().count()).isEqualTo(2708);
    assertThat(onlyPred.embeddingDim()).isZero();
    assertThatThrownBy(onlyPred::embeddings)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("embeddings(path)");
  }

  static GnnModel load(Path modelDir) {
    Checkpoint ck = Checkpoint.readForInference(modelDir);
    GnnModel m = new GnnModel(ck.modelConfig(), Backends.select());
    m.loadParams(ck.params());
    return m;
  }

  /** One block whose destinations and sources are all vertices, with their in-neighbors. */
  static Block allVertices(CsrGraph g) {
    int n = g.numVertices();
    int[] indptr = new int[n + 1];
    int[] indices = new int[(int) g.rowEnd(n - 1)];
    int e = 0;
    for (int v = 0; v < n; v++) {
      for (long p = g.rowStart(v); p < g.rowEnd(v); p++) {
        indices[e++] = g.neighbor(p);
      }
      indptr[v + 1] = e;
    }
    return new Block(indptr, indices, n, n);
  }

  static int argmax(float[] a, int off, int len) {
    int best = 0;
    for (int i = 1; i < len; i++) {
      if (a[off + i] > a[off + best]) {
        best = i;
      }
    }
    return best;
  }

  static void assertSameFiles(Path a, Path b) throws Exception {
    List<String> names;
    try (Stream<Path> s = Files.list(a)) {
      names = s.map(p -> p.getFileName().toString()).sorted().toList();
    }
    try (Stream<Path> s = Files.list(b)) {
      assertThat(s.map(p -> p.getFileName().toString()).sorted().toList()).isEqualTo(names);
    }
    assertThat(names).anyMatch(n -> n.endsWith(".parquet")).contains("_SUCCESS");
    for (String n : names) {
      assertThat(Files.readAllBytes(b.resolve(n)))
          .as(n)
          .isEqualTo(Files.readAllBytes(a.resolve(n)));
    }
  }
}
