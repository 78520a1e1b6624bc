package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun.Result;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train --feature-access gather|zero-copy} on the command line: zero-copy on the CPU backend
 * trains the model of the host gather, byte for byte, with one worker and with two, with
 * hot-embedding reuse, and on quantized stores; a bad value exits 2 with one line.
 */
class ZeroCopyTrainCommandTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path store;
  static Path shards;

  @BeforeAll
  static void fixtures() throws Exception {
    spark = SparkTestSession.start("ZeroCopyTrainCommandTest");
    TrainFixtures.Graph g = TrainFixtures.graph(13, 300, 10);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, g);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, g, new int[] {4, 3}, 8, 2, 1);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static Result train(Path graph, String name, String... more) {
    return cli(trainArgs(graph, shards, name, more));
  }

  static String[] trainArgs(Path graph, Path shardDir, String name, String... more) {
    String[] head = {
      "--epochs", "2", "--hidden", "16", "--feature-norm", "none", "--progress", "none"
    };
    String[] all = java.util.Arrays.copyOf(head, head.length + more.length);
    System.arraycopy(more, 0, all, head.length, more.length);
    return TrainFixtures.trainArgs(graph, shardDir, tmp.resolve(name), all);
  }

  /** {@code args} followed by {@code --feature-access zero-copy}. */
  static String[] zeroCopy(String... args) {
    String[] all = java.util.Arrays.copyOf(args, args.length + 2);
    all[args.length] = "--feature-access";
    all[args.length + 1] = "zero-copy";
    return all;
  }

  @Test
  void zeroCopyTrainsTheModelOfTheGatherPath() throws Exception {
    Result gather = train(store, "gather", "--backend", "cpu");
    assertThat(gather.code()).as(gather.err()).isZero();
    Result zero = train(store, "zero-copy", "--backend", "cpu", "--feature-access", "zero-copy");
    assertThat(zero.code()).as(zero.err()).isZero();
    assertThat(Files.readAllBytes(tmp.resolve("zero-copy").resolve("checkpoint.bin")))
        .isEqualTo(Files.readAllBytes(tmp.resolve("gather").resolve("checkpoint.bin")));
  }

  /**
   * With hot-embedding reuse the loader prunes each batch by vertex id and the trainer reads only
   * the pruned block's rows in place (the hot set's rows through the same mapping): the model of
   * reuse with the host gather, byte for byte, and not the model without reuse.
   */
  @Test
  void zeroCopyWithReuseTrainsTheModelOfGatherWithReuse() throws Exception {
    String[] reuse = {"--backend", "cpu", "--reuse-hot", "0.2", "--staleness", "2"};
    Result gather = train(store, "reuse-gather", reuse);
    assertThat(gather.code()).as(gather.err()).isZero();
    Result zero = train(store, "reuse-zero-copy", zeroCopy(reuse));
    assertThat(zero.code()).as(zero.err()).isZero();
    byte[] model = Files.readAllBytes(tmp.resolve("reuse-zero-copy").resolve("checkpoint.bin"));
    assertThat(model)
        .isEqualTo(Files.readAllBytes(tmp.resolve("reuse-gather").resolve("checkpoint.bin")));
    Result plain = train(store, "plain-zero-copy", "--feature-access", "zero-copy");
    assertThat(plain.code()).as(plain.err()).isZero();
    assertThat(model)
        .isNotEqualTo(Files.readAllBytes(tmp.resolve("plain-zero-copy").resolve("checkpoint.bin")));
  }

  /**
   * Data-parallel: two trainers reading their rows in place exchange gradients through their
   * backends' host buffers, pass the per-step and final replica checks ({@code --dist-verify}, the
   * last one before the run releases its model) and write the model of two gathering trainers.
   */
  @Test
  void twoZeroCopyWorkersTrainTheModelOfTwoGatheringWorkers() throws Exception {
    String[] dist = {"--workers", "2", "--dist-verify", "--dist-timeout-ms", "60000"};
    Result gather = train(store, "dist-gather", dist);
    assertThat(gather.code()).as(gather.err()).isZero();
    Result zero = train(store, "dist-zero-copy", zeroCopy(dist));
    assertThat(zero.code()).as(zero.err()).isZero();
    assertThat(Files.readAllBytes(tmp.resolve("dist-zero-copy").resolve("checkpoint.bin")))
        .isEqualTo(Files.readAllBytes(tmp.resolve("dist-gather").resolve("checkpoint.bin")));
  }

  @Test
  void aBadValueExits2WithOneLine() {
    refused(train(store, "bad", "--feature-access", "mapped"), "gather");
    // the tensor-core precisions need cuBLAS: on the CPU, one line before any training
    refused(train(store, "tf32", "--backend", "cpu", "--precision", "tf32"), "--precision fp32");
    assertThat(tmp.resolve("tf32").resolve("checkpoint.bin")).doesNotExist();
  }

  /**
   * A store quantized by {@code quantize} trains with zero-copy (the backend decodes the rows read
   * in place) the model of the host gather, byte for byte.
   */
  @Test
  void quantizedStoresTrainTheModelOfTheGatherPath() throws Exception {
    TrainFixtures.Graph g = TrainFixtures.graph(13, 300, 10);
    for (String enc : new String[] {"int4", "pq"}) {
      Path q = tmp.resolve("store-" + enc);
      Result qr =
          cli("quantize", store.toString(), "--output", q.toString(), "--feature-encoding", enc);
      assertThat(qr.code()).as(qr.err()).isZero();
      Path qs = tmp.resolve("shards-" + enc);
      TrainFixtures.writeShards(qs, q, g, new int[] {4, 3}, 8, 2, 1);
      Result gather = cli(trainArgs(q, qs, enc + "-gather", "--backend", "cpu"));
      assertThat(gather.code()).as(gather.err()).isZero();
      Result zero =
          cli(
              trainArgs(
                  q, qs, enc + "-zero-copy", "--backend", "cpu", "--feature-access", "zero-copy"));
      assertThat(zero.code()).as(zero.err()).isZero();
      assertThat(Files.readAllBytes(tmp.resolve(enc + "-zero-copy").resolve("checkpoint.bin")))
          .as(enc)
          .isEqualTo(Files.readAllBytes(tmp.resolve(enc + "-gather").resolve("checkpoint.bin")));
    }
  }

  private static void refused(Result r, String says) {
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).startsWith("fanout train: error: ").contains(says).doesNotContain("\tat ");
    assertThat(r.err().strip().lines()).hasSize(1);
  }
}
