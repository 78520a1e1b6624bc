package io.fanout.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.store.InvalidInputException;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every writing stage rerun as a notebook reruns a cell: an identical, complete request skips and
 * returns the earlier result; a changed one is refused in the API's terms; {@code mode(...)} says
 * otherwise, with {@code DataFrameWriter}'s semantics.
 */
@Tag("slow")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WriteModeTest {
  @TempDir static Path work;
  static SparkSession spark;
  static final PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
  static Path store;
  static Path shards;
  static Path model;
  static TrainResult first;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("WriteModeTest");
    store = work.resolve("cora.store");
    shards = work.resolve("cora.shards");
    model = work.resolve("cora.model");
    assertThat(prepare(true).execute().skipped()).isFalse();
    assertThat(sample(1).execute().skipped()).isFalse();
    first = train(16, 2).execute();
    assertThat(first.skipped()).isFalse();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static PrepareAction prepare(boolean undirected) {
    Path cora = SparkTestSession.dataset("cora");
    return Fanout.get(spark)
        .prepare()
        .option("vertices", cora.resolve("vertices.parquet").toString())
        .option("edges", cora.resolve("edges.parquet").toString())
        .option("undirected", Boolean.toString(undirected))
        .output(store.toString());
  }

  static SampleAction sample(long seed) {
    return Fanout.get(spark)
        .sample(store.toString())
        .output(shards.toString())
        .split("train")
        .fanouts(5, 5)
        .batchSize(64)
        .epochs(1)
        .seed(seed)
        .progress(quiet);
  }

  static TrainAction train(int hidden, int epochs) {
    return Fanout.get(spark)
        .train(store.toString(), shards.toString())
        .modelDir(model.toString())
        .epochs(epochs)
        .hidden(hidden)
        .seed(3)
        .progress(quiet);
  }

  static byte[] checkpoint() throws Exception {
    return Files.readAllBytes(Checkpoint.file(model));
  }

  @Test
  @Order(10)
  void rerunningTheTrainCellReturnsTheEarlierResult() throws Exception {
    byte[] before = checkpoint();
    TrainResult again = train(16, 2).execute();
    assertThat(again.skipped()).isTrue();
    assertThat(again.epochsRun()).isZero();
    assertThat(again.finalLoss())
        .isEqualTo(first.finalLoss(), org.assertj.core.data.Offset.offset(1e-4));
    assertThat(again.model()).isEqualTo("sage");
    assertThat(again.layers()).isEqualTo(2);
    assertThat(again.toJson()).contains("\"skipped\":true").doesNotContain("null");
    assertThat(checkpoint()).isEqualTo(before);
    // resume(true), the older spelling, says the same.
    assertThat(train(16, 2).resume(true).execute().skipped()).isTrue();
  }

  @Test
  @Order(20)
  void aChangedTrainRequestIsRefusedInTheApisTerms() throws Exception {
    byte[] before = checkpoint();
    assertThatThrownBy(() -> train(32, 2).execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("mode(\"overwrite\")")
        .hasMessageNotContaining("--");
    assertThatThrownBy(() -> train(16, 3).execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("mode(\"resume\")")
        .hasMessageNotContaining("--");
    // The command line's words for a command line.
    assertThatThrownBy(() -> train(16, 3).commandLineTerms().execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--resume");
    assertThatThrownBy(() -> train(16, 2).mode("errorifexists").execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("errorifexists");
    assertThat(checkpoint()).isEqualTo(before);
  }

  @Test
  @Order(25)
  void earlyStoppingWithoutValShardsIsRefusedNamingTheOption() throws Exception {
    byte[] before = checkpoint();
    assertThatThrownBy(() -> train(16, 2).earlyStop(2).execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--early-stop 2")
        .hasMessageContaining("--val-shards");
    assertThatThrownBy(() -> train(16, 2).option("early-stop", "-1").execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("'early-stop'");
    assertThat(checkpoint()).isEqualTo(before);
  }

  @Test
  @Order(30)
  void trainModes() throws Exception {
    byte[] before = checkpoint();
    TrainResult ignored = train(32, 5).mode("ignore").execute();
    assertThat(ignored.skipped()).isTrue();
    assertThat(checkpoint()).isEqualTo(before);

    TrainResult resumed = train(16, 3).mode("resume").execute();
    assertThat(resumed.skipped()).isFalse();
    assertThat(resumed.epochsRun()).isEqualTo(1);
    assertThat(Checkpoint.read(model).epochs()).isEqualTo(3);

    TrainResult replaced = train(32, 1).mode("overwrite").execute();
    assertThat(replaced.skipped()).isFalse();
    assertThat(replaced.epochsRun()).isEqualTo(1);
    assertThat(Checkpoint.read(model).meta()).containsEntry("model.hidden", "32");
    assertThat(replaced.metrics().count()).isEqualTo(1);
    assertThat(train(32, 1).execute().skipped()).isTrue();

    assertThatThrownBy(() -> train(32, 1).mode("resume").option("overwrite", "true").execute())
        .isInstanceOf(FanoutConfigException.class);
    assertThatThrownBy(() -> train(32, 1).mode("sideways").execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("overwrite");
  }

  @Test
  @Order(40)
  void prepareModes() {
    assertThat(prepare(true).execute().skipped()).isTrue();
    assertThatThrownBy(() -> prepare(false).execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("mode(\"overwrite\")")
        .hasMessageNotContaining("--overwrite");
    assertThatThrownBy(() -> prepare(true).mode("errorifexists").execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("errorifexists");
    PrepareResult ignored = prepare(false).mode("ignore").execute();
    assertThat(ignored.skipped()).isTrue();
    assertThat(ignored.manifest().vertices).isEqualTo(2708);
    assertThatThrownBy(() -> prepare(true).mode("resume").execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("resume");
  }

  @Test
  @Order(50)
  void sampleModes() {
    assertThat(sample(1).execute().skipped()).isTrue();
    assertThatThrownBy(() -> sample(2).execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("mode(\"overwrite\")")
        .hasMessageNotContaining("--overwrite");
    assertThatThrownBy(() -> sample(1).commandLineTerms().mode("error").execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--if-exists error");
    assertThat(sample(2).mode("ignore").execute().manifest().seed).isEqualTo(1);
    SampleResult replaced = sample(2).mode("overwrite").execute();
    assertThat(replaced.skipped()).isFalse();
    assertThat(replaced.manifest().seed).isEqualTo(2);
    assertThat(sample(2).execute().skipped()).isTrue();
  }

  @Test
  @Order(60)
  void inferModes() {
    Path out = work.resolve("predictions");
    InferAction infer = Fanout.get(spark).infer(store.toString(), model.toString());
    assertThat(infer.output(out.toString()).execute().skipped()).isFalse();
    assertThat(
            Fanout.get(spark)
                .infer(store.toString(), model.toString())
                .output(out.toString())
                .execute()
                .skipped())
        .isTrue();
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .infer(store.toString(), model.toString())
                    .output(out.toString())
                    .mode("errorifexists")
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("errorifexists");
    assertThat(
            Fanout.get(spark)
                .infer(store.toString(), model.toString())
                .output(out.toString())
                .mode("overwrite")
                .execute()
                .skipped())
        .isFalse();
    // ignore: the earlier output, even of another request (sampled inference), untouched.
    String success = read(out.resolve("_SUCCESS"));
    InferResult kept =
        Fanout.get(spark)
            .infer(store.toString(), model.toString())
            .output(out.toString())
            .option("neighbors", "sampled")
            .mode("ignore")
            .execute();
    assertThat(kept.skipped()).isTrue();
    assertThat(kept.rows()).isEqualTo(2708);
    assertThat(read(out.resolve("_SUCCESS"))).isEqualTo(success);
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .infer(store.toString(), model.toString())
                    .output(out.toString())
                    .option("neighbors", "sampled")
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("mode(\"overwrite\")");
  }

  static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
