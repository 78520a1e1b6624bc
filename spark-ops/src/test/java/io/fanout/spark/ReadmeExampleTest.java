package io.fanout.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Java pipeline, line for line (only {@code data} and {@code dir} point at the bundled
 * cora and a temporary directory). The session configures {@code spark.fanout.epochs}, which the
 * README's calls leave unset, so that training stays short: it also shows that option resolution.
 */
class ReadmeExampleTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("ReadmeExampleTest");
    spark.conf().set("spark.fanout.epochs", "3");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void theReadmePipelineRunsAsWritten() throws Exception {
    Path repo = Path.of(System.getProperty("fanout.repo", "..")).toAbsolutePath();
    String readmeData = repo.resolve("data/cora").toString();
    String readmeDir = tmp.resolve("work-dirs/cora").toString();

    // ---- from README.md, "The same pipeline from Java" ----
    Fanout fanout = Fanout.get(spark); // the caller's session: never stopped or reconfigured
    String data = readmeData, dir = readmeDir;
    Dataset<Row> vertices = spark.read().parquet(data + "/vertices.parquet"); // or a GraphFrame's
    Dataset<Row> edges = spark.read().parquet(data + "/edges.parquet");
    fanout
        .prepare(vertices, edges)
        .option("undirected", "true")
        .option("dedupe", "true")
        .option("self-loops", "drop")
        .output(dir + "/store")
        .execute()
        .summary()
        .show();
    fanout
        .sample(dir + "/store")
        .output(dir + "/train-shards")
        .split("train")
        .fanouts(25, 10)
        .batchSize(512)
        .epochs(10)
        .execute()
        .parts()
        .show();
    fanout
        .sample(dir + "/store")
        .output(dir + "/val-shards")
        .split("val")
        .fanouts(25, 10)
        .execute();
    fanout
        .train(dir + "/store", dir + "/train-shards")
        .valShards(dir + "/val-shards")
        .modelDir(dir + "/model")
        .execute()
        .metrics()
        .show(); // metrics.jsonl, a row per epoch
    fanout.evaluate(dir + "/store", dir + "/model").execute().metrics().show();
    fanout
        .infer(dir + "/store", dir + "/model")
        .output(dir + "/predictions")
        .embeddings(dir + "/embeddings")
        .execute()
        .embeddings()
        .show(); // keyed by original ids
    // ---- end of the README's lines ----

    assertThat(Checkpoint.read(Path.of(dir, "model")).epochs()).isEqualTo(3);
    assertThat(spark.read().parquet(dir + "/embeddings").count()).isEqualTo(2708L);
    assertThat(spark.read().parquet(dir + "/predictions").count()).isEqualTo(2708L);
    assertThat(Files.isRegularFile(Path.of(dir, "train-shards", "manifest.json"))).isTrue();
    assertThat(spark.sparkContext().isStopped()).isFalse();
  }
}
