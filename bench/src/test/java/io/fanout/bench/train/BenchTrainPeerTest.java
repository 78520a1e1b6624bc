package io.fanout.bench.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import io.fanout.train.FeatureAccessMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench-train --export-batches} and {@code --peer torch} on a tiny generated graph. With
 * dropout 0 both sides compute the same function from the same initial parameters on the same
 * batches, so their losses agree step for step: the check that {@code bench/torch_reference.py}
 * trains Fanout's model and not another. The PyTorch run is skipped, saying so, where no {@code
 * python3} imports torch.
 */
class BenchTrainPeerTest {
  private static final Path SCRIPT = Path.of("..", "bench", "torch_reference.py");

  private static List<String> tiny(String... more) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "bench-train",
                "--num-vertices",
                "3000",
                "--num-edges",
                "30000",
                "--feature-dim",
                "12",
                "--hidden",
                "16",
                "--fanouts",
                "5,3",
                "--batch-size",
                "64",
                "--batches",
                "3",
                "--warmup",
                "1"));
    a.addAll(List.of(more));
    return a;
  }

  @Test
  void exportsBatchesNumpyCanRead(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("batches");
    Result r = cli(tiny("--export-batches", out.toString()).toArray(String[]::new));
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out().strip());
    assertThat(j.get("batches").asInt()).isEqualTo(4);
    assertThat(out.resolve("config.json")).exists();
    assertThat(out.resolve("params.npy")).exists();
    for (int b = 0; b < 4; b++) {
      Path bd = out.resolve(String.format("batch-%04d", b));
      for (String f :
          List.of("layer_sizes", "nodes", "indptr_1", "indices_1", "indptr_2", "indices_2")) {
        assertThat(bd.resolve(f + ".npy")).exists();
      }
      assertThat(Files.size(bd.resolve("x.npy"))).isGreaterThan(12 * 64 * 4);
    }
    // x of a batch is the table's rows of its nodes, row-major
    NpyFiles.FloatMatrix table = PeerExport.features(out);
    assertThat(table.rows()).isEqualTo(3000);
    assertThat(table.cols()).isEqualTo(12);
    Path b1 = out.resolve("batch-0001");
    int[] nodes = NpyFiles.readInts(b1.resolve("nodes.npy"));
    float[] x = NpyFiles.readFloats(b1.resolve("x.npy"));
    assertThat(x).hasSize(nodes.length * 12);
    for (int i = 0; i < nodes.length; i++) {
      assertThat(java.util.Arrays.copyOfRange(x, 12 * i, 12 * i + 12))
          .as("row of node %d", nodes[i])
          .isEqualTo(java.util.Arrays.copyOfRange(table.data(), 12 * nodes[i], 12 * nodes[i] + 12));
    }
    Result again = cli(tiny("--export-batches", out.toString()).toArray(String[]::new));
    assertThat(again.code()).isEqualTo(2);
    assertThat(again.err()).contains("not empty");
  }

  @Test
  void torchTrainsTheSameModelToTheSameLosses() throws Exception {
    assumeThat(torchInstalled())
        .as("no python3 here imports torch and numpy: the PyTorch peer run is skipped")
        .isTrue();
    Result r =
        cli(
            tiny(
                    "--peer",
                    "torch",
                    "--peer-rounds",
                    "2",
                    "--dropout",
                    "0",
                    "--peer-script",
                    SCRIPT.toString())
                .toArray(String[]::new));
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out().strip());
    JsonNode ours = j.get("fanout_losses");
    JsonNode theirs = j.get("torch_losses");
    assertThat(ours.size()).isEqualTo(4).isEqualTo(theirs.size());
    for (int i = 0; i < ours.size(); i++) {
      assertThat(theirs.get(i).asDouble())
          .as("loss of step %d", i)
          .isCloseTo(ours.get(i).asDouble(), org.assertj.core.data.Percentage.withPercentage(0.01));
    }
    assertThat(j.get("fanout_over_torch").asDouble()).isPositive();
    assertThat(j.get("torch_seconds_per_step").asDouble()).isPositive();
  }

  /**
   * Fanout's side of the comparison on the CPU, against a stand-in peer: both passes of every round
   * run, the report has the CPU fields, and Fanout's losses are the same in every round (same
   * batches, same initial parameters, dropout 0).
   */
  @Test
  void comparesFanoutsStepsWithAPeersOverTheExport(@TempDir Path dir) {
    TrainBenchmark.Settings s =
        new TrainBenchmark.Settings(
            2000, 16000, 8, 16, new int[] {4, 3}, 32, 3, 1, 1, 1, 8, 0, FeatureAccessMode.AUTO);
    Path out = dir.resolve("batches");
    var cfg = PeerExport.export(s, 0f, out);
    var be = new io.fanout.tensor.CpuBackend();
    List<double[]> seen = new ArrayList<>();
    PeerBenchmark.Peer standIn =
        new PeerBenchmark.Peer() {
          @Override
          public String name() {
            return "standin";
          }

          @Override
          public PeerBenchmark.PeerRun run(Path d, int warmup, int threads, boolean cuda) {
            assertThat(cuda).isFalse();
            assertThat(warmup).isEqualTo(1);
            return new PeerBenchmark.PeerRun(
                java.util.Map.of(
                    "cpu", new PeerBenchmark.Timing(0.5, 0.5, new double[] {3, 2, 1, 0.5})),
                new java.util.LinkedHashMap<>(java.util.Map.of("standin_version", "1")));
          }
        };
    var r =
        PeerBenchmark.compare(
            out, cfg, 1, 3, 2, 1, standIn, be, PeerBenchmark.modes(FeatureAccessMode.AUTO, be));
    assertThat(r)
        .containsEntry("rounds", 2)
        .containsEntry("standin_seconds_per_step", 0.5)
        .containsEntry("standin_version", "1")
        .containsEntry("standin_last_loss", 0.5);
    assertThat((double) r.get("fanout_seconds_per_step")).isPositive();
    assertThat((double) r.get("fanout_over_standin")).isPositive();
    double[] losses = (double[]) r.get("fanout_losses");
    assertThat(losses).hasSize(4);
    seen.add(losses);
    // a fresh model from params.npy in each pass: the loop pass trains to the same losses
    var batches = PeerExport.readBatches(out, cfg, 4, true);
    float[] init = NpyFiles.readFloats(out.resolve("params.npy"));
    PeerBenchmark.Timing t = PeerBenchmark.runFanout(batches, cfg, be, 1, null, init);
    assertThat(t.losses()).isEqualTo(seen.get(0));
    assertThat(t.loopSecondsPerStep()).isPositive();
    assertThatThrownBy(() -> PeerExport.readBatches(out, cfg, 5, true))
        .hasMessageContaining("batch-0004");
  }

  private static boolean torchInstalled() {
    try {
      TorchPeer.find(TorchPeer.INTERPRETERS);
      return true;
    } catch (io.fanout.store.InvalidInputException e) {
      return false;
    }
  }

  /**
   * The epoch beside the comparison: 201 steps with in-process sampling, on the feature access the
   * run resolves (gather on the CPU), against 201 times that mode's step of the comparison.
   */
  @Test
  void theEpochIsMeasuredAgainstTheComparedStepOfItsFeatureAccess() {
    TrainBenchmark.Settings s =
        new TrainBenchmark.Settings(
                2000, 16000, 8, 16, new int[] {4, 3}, 8, 3, 1, 1, 1, 8, 0, FeatureAccessMode.AUTO)
            .withSgemmSize(64);
    PeerBenchmarkRun run =
        new PeerBenchmarkRun(s, new io.fanout.tensor.CpuBackend(), 0.5f, "", null, 1);
    java.util.Map<String, Object> e =
        run.epoch(java.util.Map.of("fanout_gather_loop_seconds_per_step", 1e-3));
    org.assertj.core.api.Assertions.assertThat(e)
        .containsEntry("epoch_steps", PeerBenchmarkRun.EPOCH_STEPS)
        .containsEntry("epoch_feature_access", "gather")
        .containsKeys("epoch_seconds", "epoch_data_wait_fraction", "epoch_over_steps");
    double seconds = ((Number) e.get("epoch_seconds")).doubleValue();
    org.assertj.core.api.Assertions.assertThat((Double) e.get("epoch_over_steps"))
        .isCloseTo(
            seconds / PeerBenchmarkRun.EPOCH_STEPS / 1e-3,
            org.assertj.core.api.Assertions.within(1e-9));
  }
}
