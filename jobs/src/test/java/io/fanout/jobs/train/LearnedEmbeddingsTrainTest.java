package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A one-type graph without features, prepared, sampled, trained with a learned embedding per vertex
 * ({@code --learned-embeddings auto}), evaluated and inferred through the CLI: its labels are its
 * communities, which only the edges tell apart, so the learned model must pass a floor that a model
 * at random (1/4) fails. Then the options a learned table cannot serve are refused, each in one
 * line naming the option.
 */
@Tag("slow")
class LearnedEmbeddingsTrainTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path store;
  static Path shards;
  static final int N = 480;
  static final int COMMUNITIES = 4;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void prepareAndSample() {
    spark = SparkTestSession.start("LearnedEmbeddingsTrainTest");
    SplittableRandom r = new SplittableRandom(17);
    List<Row> vertices = new ArrayList<>();
    List<Row> edges = new ArrayList<>();
    String[] splits = {"train", "train", "val", "test", "test"};
    for (int v = 0; v < N; v++) {
      int c = v % COMMUNITIES;
      vertices.add(RowFactory.create(10_000L + v, c, splits[r.nextInt(splits.length)]));
      for (int k = 0; k < 5; k++) {
        // four edges of five inside the community, one anywhere
        int u = r.nextInt(N / COMMUNITIES) * COMMUNITIES + (k < 4 ? c : r.nextInt(COMMUNITIES));
        if (u != v) {
          edges.add(RowFactory.create(10_000L + v, 10_000L + u));
        }
      }
    }
    Path v = tmp.resolve("vertices.parquet");
    Path e = tmp.resolve("edges.parquet");
    spark
        .createDataFrame(
            vertices,
            new StructType()
                .add("id", DataTypes.LongType)
                .add("label", DataTypes.IntegerType)
                .add("split", DataTypes.StringType))
        .write()
        .parquet(v.toString());
    spark
        .createDataFrame(
            edges, new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType))
        .write()
        .parquet(e.toString());
    store = tmp.resolve("store");
    Result p =
        cli(
            "prepare",
            "--vertices",
            v.toString(),
            "--edges",
            e.toString(),
            "--undirected",
            "--dedupe",
            "--output",
            store.toString());
    assertThat(p.code()).as(p.err()).isZero();
    shards = tmp.resolve("shards");
    Result s =
        cli(
            "sample",
            "--graph",
            store.toString(),
            "--output",
            shards.toString(),
            "--split",
            "train",
            "--fanouts",
            "10,5",
            "--batch-size",
            "32",
            "--epochs",
            "15");
    assertThat(s.code()).as(s.err()).isZero();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void learnsTheCommunitiesOfAGraphWithoutFeatures() throws Exception {
    Path md = tmp.resolve("model");
    Result t =
        cli(
            TrainFixtures.trainArgs(
                store, shards, md, "--hidden", "16", "--lr", "0.02", "--epochs", "15"));
    assertThat(t.code()).as(t.err()).isZero();
    assertThat(md.resolve("checkpoint.emb-0.bin")).exists();

    Result ev = cli("evaluate", "--graph", store.toString(), "--model-dir", md.toString());
    assertThat(ev.code()).as(ev.err()).isZero();
    double test = JSON.readTree(ev.out()).get("accuracy").get("test").asDouble();
    System.out.println("learned embeddings, one worker: test accuracy " + test);
    assertThat(test).as("test accuracy; at random 1/%d", COMMUNITIES).isGreaterThan(0.7);

    Path emb = tmp.resolve("emb");
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
    Dataset<Row> rows = spark.read().parquet(emb.toString());
    assertThat(rows.columns()).contains("id", "embedding", "learned_embedding");
    assertThat(rows.count()).isEqualTo(N);
    Row first = rows.orderBy("dense_id").first();
    assertThat(first.getList(first.fieldIndex("learned_embedding"))).hasSize(16);

    // Stopped after 7 epochs and resumed to 15: the table is read back with its optimizer
    // state, and the model is the uninterrupted one, bit for bit.
    Path resumed = tmp.resolve("resumed");
    String[] opts = {"--hidden", "16", "--lr", "0.02"};
    Result first7 =
        cli(TrainFixtures.trainArgs(store, shards, resumed, concat(opts, "--epochs", "7")));
    assertThat(first7.code()).as(first7.err()).isZero();
    Result rest =
        cli(
            TrainFixtures.trainArgs(
                store, shards, resumed, concat(opts, "--epochs", "15", "--resume")));
    assertThat(rest.code()).as(rest.err()).isZero();
    for (String f : new String[] {"checkpoint.emb-0.bin", "checkpoint.bin"}) {
      assertThat(Files.mismatch(md.resolve(f), resumed.resolve(f))).as(f).isEqualTo(-1L);
    }
  }

  /** Two data-parallel workers: the rows' gradients are reduced, and the model still learns. */
  @Test
  void trainsOnTwoWorkers() throws Exception {
    Path md = tmp.resolve("two-workers");
    Result t =
        cli(
            TrainFixtures.trainArgs(
                store,
                shards,
                md,
                "--hidden",
                "16",
                "--lr",
                "0.02",
                "--epochs",
                "15",
                "--workers",
                "2"));
    assertThat(t.code()).as(t.err()).isZero();
    assertThat(JSON.readTree(t.out()).get("workers").asInt()).isEqualTo(2);
    Result ev = cli("evaluate", "--graph", store.toString(), "--model-dir", md.toString());
    assertThat(ev.code()).as(ev.err()).isZero();
    double test = JSON.readTree(ev.out()).get("accuracy").get("test").asDouble();
    System.out.println("learned embeddings, two workers: test accuracy " + test);
    assertThat(test).as("test accuracy; at random 1/%d", COMMUNITIES).isGreaterThan(0.7);
  }

  /**
   * {@code --learned-embeddings all} on a store with features: the table replaces them (the model
   * takes no feature rows), and evaluate reads it back.
   */
  @Test
  void allLearnsATableOnAStoreWithFeatures() throws Exception {
    TrainFixtures.Graph g = TrainFixtures.graph(3, 300, 12);
    Path withFeatures = tmp.resolve("with-features");
    TrainFixtures.writeStore(withFeatures, g);
    Path featureShards = tmp.resolve("with-features-shards");
    TrainFixtures.writeShards(featureShards, withFeatures, g, new int[] {5, 5}, 32, 2, 1);
    Path md = tmp.resolve("all");
    Result t =
        cli(
            TrainFixtures.trainArgs(
                withFeatures,
                featureShards,
                md,
                "--learned-embeddings",
                "all",
                "--hidden",
                "8",
                "--epochs",
                "2"));
    assertThat(t.code()).as(t.err()).isZero();
    assertThat(md.resolve("checkpoint.emb-0.bin")).exists();
    Result ev = cli("evaluate", "--graph", withFeatures.toString(), "--model-dir", md.toString());
    assertThat(ev.code()).as(ev.err()).isZero();
    assertThat(JSON.readTree(ev.out()).get("accuracy").get("test").asDouble()).isBetween(0.0, 1.0);
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void whatTheTableCannotServeIsRefusedNamingTheOption() {
    String[][] refused = {
      {"--learned-embeddings", "off"},
      {"--feature-cache", "lru", "--feature-cache-bytes", "100000"},
      {"--feature-access", "zero-copy"},
      {"--reuse-hot", "0.1"},
    };
    String[] named = {"--learned-embeddings", "--feature-cache", "--feature-access", "--reuse-hot"};
    for (int i = 0; i < refused.length; i++) {
      List<String> args = new ArrayList<>(List.of("--epochs", "1"));
      args.addAll(List.of(refused[i]));
      Result t =
          cli(
              TrainFixtures.trainArgs(
                  store, shards, tmp.resolve("refused-" + i), args.toArray(new String[0])));
      assertThat(t.code()).as(String.join(" ", refused[i]) + ": " + t.err()).isEqualTo(2);
      assertThat(t.err()).contains(named[i]);
      assertThat(t.err().strip().lines()).as(t.err()).hasSize(1);
    }
  }
}
