package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun.Result;
import io.fanout.spark.Fanout;
import io.fanout.spark.TrainAction;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train --reuse-hot F --staleness S --hot-by H} and {@code TrainAction.reuseHot}: the same
 * model bytes from the CLI and the API and whatever the loader threads, another model than training
 * without reuse, exactly that model with {@code --reuse-hot 0}, and bad settings refused with one
 * line.
 */
class ReuseHotTrainTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path store;
  static Path shards;
  static byte[] plain;

  @BeforeAll
  static void fixtures() throws Exception {
    spark = SparkTestSession.start("ReuseHotTrainTest");
    TrainFixtures.Graph g = TrainFixtures.graph(5, 400, 10);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, g);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, g, new int[] {4, 3}, 4, 2, 1);
    plain = train("plain");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Trains 2 epochs into a fresh model dir; returns its checkpoint. */
  static byte[] train(String name, String... more) throws Exception {
    Path model = tmp.resolve(name);
    String[] base = {"--epochs", "2", "--progress", "none"};
    String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    Result r = cli(TrainFixtures.trainArgs(store, shards, model, all));
    assertThat(r.code()).as(r.err()).isZero();
    return Files.readAllBytes(model.resolve("checkpoint.bin"));
  }

  @Test
  void cliAndApiTrainTheSameDeterministicModel() throws Exception {
    byte[] one = train("r1", "--reuse-hot", "0.2", "--staleness", "2", "--loader-threads", "1");
    byte[] three = train("r3", "--reuse-hot", "0.2", "--staleness", "2", "--loader-threads", "3");
    assertThat(three).isEqualTo(one);
    assertThat(one).isNotEqualTo(plain);
    Path api = apiTrain("api", a -> a);
    assertThat(Files.readAllBytes(api.resolve("checkpoint.bin"))).isEqualTo(one);

    assertThat(train("off", "--reuse-hot", "0", "--staleness", "3")).isEqualTo(plain);
    byte[] degree = train("deg", "--reuse-hot", "0.2", "--staleness", "2", "--hot-by", "in-degree");
    assertThat(degree).isNotEqualTo(plain).isNotEqualTo(one);
  }

  /**
   * Staleness auto trains the model of the staleness it resolves to (a twelfth of the epoch's
   * steps, at least 1) and records auto; the API's AUTO_STALENESS is the same option.
   */
  @Test
  void stalenessAutoIsTheEpochsTwelfth() throws Exception {
    train("auto-s", "--reuse-hot", "0.2", "--staleness", "auto");
    io.fanout.train.Checkpoint auto = io.fanout.train.Checkpoint.read(tmp.resolve("auto-s"));
    assertThat(auto.meta()).containsEntry("identity.train.staleness", "auto");
    int steps = (int) (auto.step() / 2); // 2 epochs
    String resolved = Integer.toString(Math.max(1, steps / 12));
    train("fixed-s", "--reuse-hot", "0.2", "--staleness", resolved);
    assertThat(io.fanout.train.Checkpoint.read(tmp.resolve("fixed-s")).params())
        .containsExactly(auto.params());
    Path api =
        apiTrain(
            "api-auto", a -> a.reuseHot(0.2, io.fanout.train.HotReuse.AUTO_STALENESS, "frequency"));
    assertThat(io.fanout.train.Checkpoint.read(api).params()).containsExactly(auto.params());
  }

  /**
   * On the CPU backend, with a cache of outputs, refreshes inline (the training thread, lag 0)
   * train another model than the default (auto: an overlapped worker, lag 1 at S = 2), the same
   * through the API and the CLI; the checkpoint records the schedule each ran.
   */
  @Test
  void inlineRefreshesFollowTheirOwnScheduleOnTheCpu() throws Exception {
    Path inline = apiTrain("inline", a -> a.reuseRefresh("inline").reuseRows("outputs"));
    String[] outputs = {"--reuse-hot", "0.2", "--staleness", "2", "--reuse-rows", "outputs"};
    train("inline-cli", concat(outputs, "--reuse-refresh", "inline"));
    Path auto = tmp.resolve("auto");
    train("auto", concat(outputs, "--reuse-refresh", "auto"));
    io.fanout.train.Checkpoint a = io.fanout.train.Checkpoint.read(auto);
    io.fanout.train.Checkpoint i = io.fanout.train.Checkpoint.read(inline);
    assertThat(io.fanout.train.Checkpoint.read(tmp.resolve("inline-cli")).params())
        .containsExactly(i.params());
    assertThat(i.params()).isNotEqualTo(a.params());
    assertThat(i.meta()).containsEntry("identity.train.reuse_refresh", "inline");
    // auto records the schedule it resolved to, so it and an explicit overlapped are one run
    assertThat(a.meta()).containsEntry("identity.train.reuse_refresh", "overlapped");
  }

  /**
   * A checkpoint records the refresh schedule auto resolved to: resuming it with that schedule
   * given explicitly continues it, with the other one is refused, and one that does not record it
   * (trained under auto before it was recorded) is refused with what to do.
   */
  @Test
  void resumingChecksTheRefreshScheduleAutoResolvedTo() throws Exception {
    String[] outputs = {"--reuse-hot", "0.2", "--staleness", "2", "--reuse-rows", "outputs"};
    Path auto = tmp.resolve("auto-resume");
    train("auto-resume", outputs);
    Result other =
        cli(
            TrainFixtures.trainArgs(
                store,
                shards,
                auto,
                concat(outputs, "--epochs", "3", "--resume", "--reuse-refresh", "inline")));
    assertThat(other.code()).isEqualTo(2);
    assertThat(other.err())
        .contains("identity.train.reuse_refresh is 'overlapped' but this run has 'inline'");
    Result same =
        cli(
            TrainFixtures.trainArgs(
                store,
                shards,
                auto,
                concat(outputs, "--epochs", "3", "--resume", "--reuse-refresh", "overlapped")));
    assertThat(same.code()).as(same.err()).isZero();
    assertThat(io.fanout.train.Checkpoint.read(auto).epochs()).isEqualTo(3);

    io.fanout.train.Checkpoint ck = io.fanout.train.Checkpoint.read(auto);
    java.util.Map<String, String> meta = new java.util.TreeMap<>(ck.meta());
    meta.remove("identity.train.reuse_refresh");
    Path old = tmp.resolve("auto-unrecorded");
    io.fanout.train.Checkpoint.write(
        old, meta, ck.epochs(), ck.step(), ck.params(), ck.firstMoment(), ck.secondMoment());
    Result unrecorded =
        cli(
            TrainFixtures.trainArgs(
                store, shards, old, concat(outputs, "--epochs", "4", "--resume")));
    assertThat(unrecorded.code()).isEqualTo(2);
    assertThat(unrecorded.err())
        .contains("does not record which refresh schedule its reuse ran")
        .contains("use another --model-dir or train it again");
  }

  /**
   * A cache of layer 0's aggregated inputs trains another model than one of its outputs, the same
   * through the API and the CLI, and the checkpoint records it (a cache of outputs records nothing,
   * as before the option existed).
   */
  @Test
  void reusedInputsTrainTheirOwnModelThroughApiAndCli() throws Exception {
    Path api = apiTrain("inputs", a -> a.reuseRows("inputs"));
    train("inputs-cli", "--reuse-hot", "0.2", "--staleness", "2", "--reuse-rows", "inputs");
    io.fanout.train.Checkpoint in = io.fanout.train.Checkpoint.read(api);
    assertThat(io.fanout.train.Checkpoint.read(tmp.resolve("inputs-cli")).params())
        .containsExactly(in.params());
    train("outputs-cli", "--reuse-hot", "0.2", "--staleness", "2", "--reuse-rows", "outputs");
    io.fanout.train.Checkpoint out = io.fanout.train.Checkpoint.read(tmp.resolve("outputs-cli"));
    assertThat(in.params()).isNotEqualTo(out.params());
    assertThat(in.meta()).containsEntry("identity.train.reuse_rows", "inputs");
    assertThat(out.meta()).doesNotContainKey("identity.train.reuse_rows");
    // the default (auto) is inputs for sage, outputs for gcn, which refuses inputs; and for inputs
    // auto refreshes inline on the CPU too
    assertThat(train("rows-auto", "--reuse-hot", "0.2", "--staleness", "2"))
        .isEqualTo(Files.readAllBytes(tmp.resolve("inputs-cli").resolve("checkpoint.bin")));
    train(
        "inputs-inline",
        "--reuse-hot",
        "0.2",
        "--staleness",
        "2",
        "--reuse-rows",
        "inputs",
        "--reuse-refresh",
        "inline");
    assertThat(io.fanout.train.Checkpoint.read(tmp.resolve("inputs-inline")).params())
        .containsExactly(in.params());
    train("gcn-auto", "--reuse-hot", "0.2", "--staleness", "2", "--model", "gcn");
    assertThat(io.fanout.train.Checkpoint.read(tmp.resolve("gcn-auto")).meta())
        .doesNotContainKey("identity.train.reuse_rows");
  }

  private static String[] concat(String[] a, String... b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  /** Trains 2 epochs through the API with reuse 0.2 / 2 by frequency and {@code more}. */
  private static Path apiTrain(String name, UnaryOperator<TrainAction> more) {
    Path model = tmp.resolve(name);
    more.apply(
            Fanout.get(spark)
                .train(store.toString(), shards.toString())
                .modelDir(model.toString())
                .epochs(2)
                .reuseHot(0.2, 2, "frequency")
                .progress(null))
        .execute();
    return model;
  }

  @Test
  void badReuseOptionsExit2WithOneLine() {
    refused("m1", "reuse-hot", "--reuse-hot", "1.5");
    refused("m2", "staleness", "--reuse-hot", "0.1", "--staleness", "0");
    refused("m3", "frequency", "--reuse-hot", "0.1", "--hot-by", "pagerank");
    refused("m5", "reuse-refresh", "--reuse-hot", "0.1", "--reuse-refresh", "async");
    refused("m6", "reuse-backward", "--reuse-hot", "0.1", "--reuse-backward", "later");
    refused("m7", "reuse-rows", "--reuse-hot", "0.1", "--reuse-rows", "both");
    refused(
        "m8",
        "reuse-backward deferred applies to reuse-rows outputs",
        "--reuse-hot",
        "0.1",
        "--reuse-rows",
        "inputs",
        "--reuse-backward",
        "deferred");
    refused(
        "m9",
        "needs --model sage",
        "--reuse-hot",
        "0.1",
        "--reuse-rows",
        "inputs",
        "--model",
        "gcn");
    refused(
        "m4",
        "does not work with a --feature-cache read in place",
        "--reuse-hot",
        "0.1",
        "--feature-access",
        "zero-copy",
        "--feature-cache",
        "belady",
        "--feature-cache-bytes",
        "100000");
  }

  private static void refused(String model, String says, String... args) {
    String[] all = java.util.Arrays.copyOf(args, args.length + 2);
    all[args.length] = "--epochs";
    all[args.length + 1] = "1";
    Result r = cli(TrainFixtures.trainArgs(store, shards, tmp.resolve(model), all));
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).startsWith("fanout train: error: ").contains(says).doesNotContain("\tat ");
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(tmp.resolve(model)).doesNotExist();
  }
}
