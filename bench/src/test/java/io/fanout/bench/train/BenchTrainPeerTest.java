package io.fanout.bench.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench-train --export-batches} and {@code --peer torch} on a tiny generated graph. With
 * dropout 0 both sides compute the same function from the same initial parameters on the same
 * batches, so their losses agree step for step: the check that {@code bench/torch_reference.py}
 * trains Fanout's model and not another. The PyTorch run is skipped, saying so, where Debian's
 * {@code python3-torch} is not installed.
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
    Result again = cli(tiny("--export-batches", out.toString()).toArray(String[]::new));
    assertThat(again.code()).isEqualTo(2);
    assertThat(again.err()).contains("not empty");
  }

  @Test
  void torchTrainsTheSameModelToTheSameLosses() throws Exception {
    assumeThat(torchInstalled())
        .as("Debian's python3-torch is not installed: the PyTorch peer run is skipped")
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

  private static boolean torchInstalled() throws Exception {
    Path python = Path.of("/usr/bin/python3");
    if (!Files.isExecutable(python)) {
      return false;
    }
    Process p =
        new ProcessBuilder(python.toString(), "-c", "import torch, numpy")
            .redirectErrorStream(true)
            .start();
    p.getInputStream().readAllBytes();
    return p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0;
  }
}
