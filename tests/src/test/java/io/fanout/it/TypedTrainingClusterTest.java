package io.fanout.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.spark.Fanout;
import io.fanout.spark.TrainAction;
import io.fanout.spark.generate.TypedGraphGenerator;
import io.fanout.spark.generate.TypedGraphLayout;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed training on {@code local-cluster[2,1,1024]}: a generated typed graph is prepared and
 * sampled in local mode, and trained there with {@code --workers 2} (two replicas in one JVM); then
 * trained on two executor JVMs, one replica each, gradients and learned-table rows over TCP. Both
 * give the same model bytes.
 */
@Tag("cluster")
class TypedTrainingClusterTest {
  @TempDir static Path tmp;

  /**
   * Target {@code T} without features, read through {@code A} (features) and a learned table for
   * {@code C} (no features).
   */
  static final TypedGraphLayout LAYOUT =
      new TypedGraphLayout(
          List.of(
              new TypedGraphLayout.Type("T", 1_200, 8),
              new TypedGraphLayout.Type("A", 1_200, 8),
              new TypedGraphLayout.Type("C", 300, 0)),
          List.of(
              new TypedGraphLayout.Relation("a_t", 1, 0, 6_000, 1.0),
              new TypedGraphLayout.Relation("c_t", 2, 0, 3_000, 0.5)),
          0);

  private static TrainAction train(SparkSession spark, Path store, Path shards, Path md) {
    return Fanout.get(spark)
        .train(store.toString(), shards.toString())
        .option("model-dir", md.toString())
        .option("model", "rgcn")
        .option("hidden", "16")
        .option("lr", "0.01")
        .option("epochs", "3")
        .option("seed", "4")
        .option("dist-verify", "true")
        .option("dist-timeout-ms", "60000");
  }

  @Test
  void twoExecutorsTrainTheModelTwoInProcessWorkersTrain() throws Exception {
    Path store = tmp.resolve("store");
    Path shards = tmp.resolve("shards");
    Path local = tmp.resolve("local.model");
    SparkSession spark = SparkTestSession.start("TypedTrainingClusterTest-local");
    try {
      Path graph = tmp.resolve("graph");
      new TypedGraphGenerator(LAYOUT, 3, 9).write(spark, 1, graph);
      Fanout.get(spark)
          .prepare()
          .option("graph-spec", graph.resolve(TypedGraphGenerator.GRAPH_SPEC).toString())
          .option("add-reverse", "true")
          .option("partitions", "2")
          .output(store.toString())
          .execute();
      Fanout.get(spark)
          .sample(store.toString())
          .output(shards.toString())
          .option("split", "train")
          .option("batch-size", "64")
          .option("fanouts", "*=10,5")
          .option("epochs", "3")
          .option("seed", "3")
          .execute();
      String json = train(spark, store, shards, local).option("workers", "2").execute().toJson();
      assertThat(json).contains("\"workers\":2");
    } finally {
      spark.stop();
    }

    SparkSession cluster =
        LocalClusterSession.start(
            "typed-train-it",
            2,
            1024,
            Map.of(
                "spark.barrier.sync.timeout", "120s",
                "spark.scheduler.barrier.maxConcurrentTasksCheck.interval", "2s"));
    try {
      Path md = tmp.resolve("cluster.model");
      // a cluster master and no --workers: one replica per executor slot
      String json = train(cluster, store, shards, md).execute().toJson();
      assertThat(json).contains("\"workers\":2");
      assertThat(Files.readAllBytes(md.resolve("checkpoint.bin")))
          .as("the model of two executors")
          .isEqualTo(Files.readAllBytes(local.resolve("checkpoint.bin")));
      assertThat(Files.readAllLines(md.resolve("metrics.jsonl")))
          .as("the metrics rank 0 wrote")
          .hasSize(Files.readAllLines(local.resolve("metrics.jsonl")).size());
    } finally {
      LocalClusterSession.stop(cluster);
    }
  }
}
