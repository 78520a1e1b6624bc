package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import io.fanout.spark.EvaluateResult;
import io.fanout.spark.Fanout;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * train, evaluate and infer through the CLI on a fixture store and shards; evaluate and infer run
 * through the API on the class's session, which the commands use as the active one.
 */
class TrainCommandsTest {
  @TempDir static Path tmp;
  static Path store;
  static Path shards;
  static Path otherStore;
  static SparkSession spark;
  static TrainFixtures.Graph graph;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void fixtures() throws Exception {
    spark = SparkTestSession.start("TrainCommandsTest");
    graph = TrainFixtures.graph(3, 300, 12);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, graph);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, graph, new int[] {5, 5}, 32, 2, 1);
    otherStore = tmp.resolve("other");
    TrainFixtures.writeStore(otherStore, TrainFixtures.graph(4, 200, 10));
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void trainEvaluateInfer() throws Exception {
    Path md = tmp.resolve("model");
    Result t =
        cli(
            "train",
            "--graph",
            store.toString(),
            "--shards",
            shards.toString(),
            "--model-dir",
            md.toString(),
            "--epochs",
            "6",
            "--hidden",
            "32",
            "--lr",
            "0.01");
    assertThat(t.code()).as(t.err()).isZero();
    JsonNode tj = JSON.readTree(t.out());
    assertThat(tj.get("epochs_run").asInt()).isEqualTo(6);
    assertThat(tj.get("layers").asInt()).isEqualTo(2);
    assertThat(t.err()).contains("epoch 6/6").contains("data-wait");
    List<String> metrics = Files.readAllLines(md.resolve("metrics.jsonl"));
    assertThat(metrics).hasSize(6);
    assertThat(JSON.readTree(metrics.get(5)).get("epoch").asInt()).isEqualTo(5);

    Result full = cli("evaluate", "--graph", store.toString(), "--model-dir", md.toString());
    assertThat(full.code()).as(full.err()).isZero();
    JsonNode fj = JSON.readTree(full.out());
    double fullTest = fj.get("accuracy").get("test").asDouble();
    assertThat(fullTest).isGreaterThan(0.8);
    assertThat(fj.get("counts").get("test").asLong()).isPositive();

    Result sampled =
        cli(
            "evaluate",
            "--graph",
            store.toString(),
            "--model-dir",
            md.toString(),
            "--neighbors",
            "sampled",
            "--fanouts",
            "20,20");
    assertThat(sampled.code()).as(sampled.err()).isZero();
    double sampledTest = JSON.readTree(sampled.out()).get("accuracy").get("test").asDouble();
    assertThat(Math.abs(sampledTest - fullTest)).isLessThan(0.03);

    // The API's numbers and JSON are the command's.
    EvaluateResult api = Fanout.get(spark).evaluate(store.toString(), md.toString()).execute();
    assertThat(JSON.readTree(api.toJson())).isEqualTo(fj);
    assertThat(api.accuracy("test")).isCloseTo(fullTest, within(1e-6));
    EvaluateResult apiSampled =
        Fanout.get(spark)
            .evaluate(store.toString(), md.toString())
            .option("neighbors", "sampled")
            .option("fanouts", "20,20")
            .execute();
    assertThat(JSON.readTree(apiSampled.toJson())).isEqualTo(JSON.readTree(sampled.out()));

    Path pred = tmp.resolve("pred");
    Path emb = tmp.resolve("emb");
    Result inf =
        cli(
            "infer",
            "--graph",
            store.toString(),
            "--model-dir",
            md.toString(),
            "--output",
            pred.toString(),
            "--embeddings",
            emb.toString());
    assertThat(inf.code()).as(inf.err()).isZero();
    JsonNode ij = JSON.readTree(inf.out());
    assertThat(ij.get("output").asText()).isEqualTo(pred.toString());
    assertThat(ij.get("rows").asLong()).isEqualTo(300);
    assertThat(ij.get("embeddings").asText()).isEqualTo(emb.toString());
    assertThat(ij.get("embedding_dim").asInt()).isEqualTo(32);
    assertThat(ij.get("skipped").asBoolean()).isFalse();
    List<Group> embRows = readParquetDir(emb);
    assertThat(embRows).hasSize(300);
    for (Group g : embRows) {
      assertThat(g.getLong("id", 0))
          .isEqualTo(TrainFixtures.originalId(g.getInteger("dense_id", 0)));
      assertThat(g.getGroup("embedding", 0).getFieldRepetitionCount(0)).isEqualTo(32);
    }
    List<Group> rows = readParquetDir(pred);
    assertThat(rows).hasSize(300);
    for (Group g : rows) {
      int dense = g.getInteger("dense_id", 0);
      assertThat(g.getLong("id", 0)).isEqualTo(TrainFixtures.originalId(dense));
      Group probs = g.getGroup("probabilities", 0);
      assertThat(probs.getFieldRepetitionCount(0)).isEqualTo(3);
      double sum = 0;
      int best = 0;
      for (int c = 0; c < 3; c++) {
        float p = probs.getGroup(0, c).getFloat(0, 0);
        sum += p;
        if (p > probs.getGroup(0, best).getFloat(0, 0)) {
          best = c;
        }
      }
      assertThat(sum).isCloseTo(1.0, org.assertj.core.api.Assertions.within(1e-4));
      assertThat(g.getInteger("prediction", 0)).isEqualTo(best);
    }
    // The same request again is kept; another one needs --overwrite.
    Result again =
        cli(
            "infer",
            "--graph",
            store.toString(),
            "--model-dir",
            md.toString(),
            "--output",
            pred.toString());
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(JSON.readTree(again.out()).get("skipped").asBoolean()).isTrue();
    String[] sampledInfer = {
      "infer",
      "--graph",
      store.toString(),
      "--model-dir",
      md.toString(),
      "--embeddings",
      emb.toString(),
      "--neighbors",
      "sampled"
    };
    Result other = cli(sampledInfer);
    assertThat(other.code()).isEqualTo(2);
    assertThat(other.err()).contains(emb.toString()).contains("--overwrite");
    Result replaced = cli(concat(sampledInfer, "--overwrite"));
    assertThat(replaced.code()).as(replaced.err()).isZero();
    JsonNode rj = JSON.readTree(replaced.out());
    assertThat(rj.has("output")).isFalse();
    assertThat(rj.get("skipped").asBoolean()).isFalse();
    assertThat(readParquetDir(emb)).hasSize(300);
    Result neither = cli("infer", "--graph", store.toString(), "--model-dir", md.toString());
    assertThat(neither.code()).isEqualTo(2);
    assertThat(neither.err()).contains("nothing to write").contains("--embeddings");

    // Resume after completion: nothing left to do, same model.
    byte[] before = Files.readAllBytes(md.resolve("checkpoint.bin"));
    Result resumed =
        cli(
            "train",
            "--graph",
            store.toString(),
            "--shards",
            shards.toString(),
            "--model-dir",
            md.toString(),
            "--epochs",
            "6",
            "--hidden",
            "32",
            "--lr",
            "0.01",
            "--resume");
    assertThat(resumed.code()).as(resumed.err()).isZero();
    assertThat(Files.readAllBytes(md.resolve("checkpoint.bin"))).isEqualTo(before);

    // Another model into the same dir, or a model on another store: clear errors.
    Result otherModel =
        cli(
            "train",
            "--graph",
            store.toString(),
            "--shards",
            shards.toString(),
            "--model-dir",
            md.toString(),
            "--model",
            "gcn",
            "--resume");
    assertThat(otherModel.code()).isEqualTo(2);
    assertThat(otherModel.err()).contains("belongs to another run").contains("model.hidden");
    Result wrongStore =
        cli("evaluate", "--graph", otherStore.toString(), "--model-dir", md.toString());
    assertThat(wrongStore.code()).isEqualTo(2);
    assertThat(wrongStore.err()).contains("takes 12 features").contains("feature_dim 10");
  }

  /** GAT through the CLI: trained, evaluated and inferred as the other models, on the fixture. */
  @Test
  void gatTrainsEvaluatesAndInfers() throws Exception {
    Path md = tmp.resolve("gat-model");
    Result t =
        cli(
            TrainFixtures.trainArgs(
                store,
                shards,
                md,
                "--model",
                "gat",
                "--heads",
                "4",
                "--activation",
                "elu",
                "--epochs",
                "6",
                "--hidden",
                "32",
                "--lr",
                "0.01"));
    assertThat(t.code()).as(t.err()).isZero();
    Result full = cli("evaluate", "--graph", store.toString(), "--model-dir", md.toString());
    assertThat(full.code()).as(full.err()).isZero();
    assertThat(JSON.readTree(full.out()).get("accuracy").get("test").asDouble()).isGreaterThan(0.8);
    Path emb = tmp.resolve("gat-emb");
    Result inf =
        cli(
            "infer",
            "--graph",
            store.toString(),
            "--model-dir",
            md.toString(),
            "--embeddings",
            emb.toString());
    assertThat(inf.code()).as(inf.err()).isZero();
    assertThat(JSON.readTree(inf.out()).get("embedding_dim").asInt()).isEqualTo(32);
    assertThat(readParquetDir(emb)).hasSize(300);

    Result badHeads =
        cli(
            TrainFixtures.trainArgs(
                store,
                shards,
                tmp.resolve("gat-bad"),
                "--model",
                "gat",
                "--hidden",
                "32",
                "--heads",
                "5"));
    assertThat(badHeads.code()).isEqualTo(2);
    assertThat(badHeads.err()).contains("'heads'").contains("--hidden 32");
  }

  @Test
  void backendOptionPicksTheCheckingModeAndRefusesAMissingGpu() throws Exception {
    Path md = tmp.resolve("checked-model");
    Result checked =
        cli(
            TrainFixtures.trainArgs(
                store, shards, md, "--epochs", "1", "--backend", "cpu-checked"));
    assertThat(checked.code()).as(checked.err()).isZero();
    assertThat(md.resolve("checkpoint.bin")).exists();

    Path none = tmp.resolve("cuda-model");
    Result cuda = cli(TrainFixtures.trainArgs(store, shards, none, "--backend", "cuda"));
    assertThat(cuda.code()).isEqualTo(2);
    assertThat(cuda.err())
        .startsWith("fanout train: error: ")
        .contains("'cuda'")
        .contains("use --backend cpu")
        .doesNotContain("\tat ");
    assertThat(none.resolve("checkpoint.bin")).doesNotExist();
  }

  @Test
  void badInputsFailClearlyAndWriteNothing() throws Exception {
    Path md = tmp.resolve("bad-model");
    Result foreign =
        cli(
            "train",
            "--graph",
            otherStore.toString(),
            "--shards",
            shards.toString(),
            "--model-dir",
            md.toString(),
            "--epochs",
            "1");
    assertThat(foreign.code()).isEqualTo(2);
    assertThat(foreign.err()).contains("300 vertices").contains("another graph store");
    assertThat(md.resolve("checkpoint.bin")).doesNotExist();

    Path empty = tmp.resolve("empty-shards");
    TrainFixtures.writeShards(empty, store, graph, new int[] {5, 5}, 32, 0, 1);
    Result none =
        cli(
            "train",
            "--graph",
            store.toString(),
            "--shards",
            empty.toString(),
            "--model-dir",
            md.toString(),
            "--epochs",
            "1");
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.err()).contains("empty shard set");

    Result incomplete =
        cli(
            "train",
            "--graph",
            store.toString(),
            "--shards",
            tmp.resolve("nope").toString(),
            "--model-dir",
            md.toString());
    assertThat(incomplete.code()).isEqualTo(2);
    assertThat(incomplete.err()).contains("manifest.json");

    Result layers =
        cli(
            "train",
            "--graph",
            store.toString(),
            "--shards",
            shards.toString(),
            "--model-dir",
            md.toString(),
            "--layers",
            "3");
    assertThat(layers.code()).isEqualTo(2);
    assertThat(layers.err()).contains("2-hop");
    assertThat(md.resolve("checkpoint.bin")).doesNotExist();

    Result noModel = cli("evaluate", "--graph", store.toString(), "--model-dir", md.toString());
    assertThat(noModel.code()).isEqualTo(2);
    assertThat(noModel.err()).contains("no checkpoint");
    Result noModelInfer =
        cli(
            "infer",
            "--graph",
            store.toString(),
            "--model-dir",
            md.toString(),
            "--embeddings",
            tmp.resolve("no-emb").toString());
    assertThat(noModelInfer.code()).isEqualTo(2);
    assertThat(noModelInfer.err()).contains("no checkpoint");

    // A 1-layer model has no hidden layer to embed.
    Path shards1 = tmp.resolve("shards-1");
    TrainFixtures.writeShards(shards1, store, graph, new int[] {5}, 32, 1, 1);
    Path md1 = tmp.resolve("model-1");
    Result t1 =
        cli(
            "train",
            "--graph",
            store.toString(),
            "--shards",
            shards1.toString(),
            "--model-dir",
            md1.toString(),
            "--epochs",
            "1",
            "--hidden",
            "8");
    assertThat(t1.code()).as(t1.err()).isZero();
    Path emb1 = tmp.resolve("emb-1");
    Result oneLayer =
        cli(
            "infer",
            "--graph",
            store.toString(),
            "--model-dir",
            md1.toString(),
            "--embeddings",
            emb1.toString());
    assertThat(oneLayer.code()).isEqualTo(2);
    assertThat(oneLayer.err()).contains("1 layer").contains("no hidden layer");
    assertThat(emb1).doesNotExist();
  }

  static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  static List<Group> readParquetDir(Path dir) throws Exception {
    List<Group> out = new ArrayList<>();
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".parquet")).sorted().toList()) {
        try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(f))) {
          MessageType schema = r.getFooter().getFileMetaData().getSchema();
          var io = new ColumnIOFactory().getColumnIO(schema);
          PageReadStore pages;
          while ((pages = r.readNextRowGroup()) != null) {
            var rr = io.getRecordReader(pages, new GroupRecordConverter(schema));
            for (long i = 0; i < pages.getRowCount(); i++) {
              out.add(rr.read());
            }
          }
        }
      }
    }
    return out;
  }
}
