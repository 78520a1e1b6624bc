package io.fanout.bench.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.bench.train.PeerBenchmark.PeerRun;
import io.fanout.bench.train.PeerBenchmark.Timing;
import io.fanout.store.InvalidInputException;
import io.fanout.train.FeatureAccessMode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The torch peer without torch: which interpreter it picks (fake interpreters that pass or fail the
 * import probe), what it reads from the script's JSON line (canned lines of the CUDA and CPU
 * paths), and the report built from them.
 */
class TorchPeerTest {
  @TempDir Path dir;

  private Path fake(String name, String body) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, "#!/bin/sh\n" + body + "\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    return p;
  }

  @Test
  void picksTheFirstInterpreterThatImportsTorch() throws Exception {
    String noTorch = fake("no-torch", "echo 'No module named torch' >&2; exit 1").toString();
    String venv = fake("venv-python", "echo noise; echo /venv/bin/python3").toString();
    String debian = fake("debian-python", "echo /usr/bin/python3").toString();
    String missing = dir.resolve("absent").toString();

    assertThat(TorchPeer.find(List.of(missing, noTorch, venv, debian)))
        .isEqualTo(new TorchPeer.Interpreter(venv, "/venv/bin/python3"));
    assertThat(TorchPeer.find(List.of(debian, venv)).command()).isEqualTo(debian);
    assertThatThrownBy(() -> TorchPeer.find(List.of(missing, noTorch)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("needs a Python that imports torch and numpy")
        .hasMessageContaining(missing + ": cannot run")
        .hasMessageContaining(noTorch + ": cannot import torch and numpy");
    assertThat(TorchPeer.INTERPRETERS).containsExactly("python3", "/usr/bin/python3");
  }

  @Test
  void saysWhichInterpreterItUsesOnceAndRefusesAMissingScript() throws Exception {
    String venv = fake("venv-python", "echo /venv/bin/python3").toString();
    Path script = fake("torch_reference.py", "exit 0");
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    TorchPeer peer =
        new TorchPeer(script, List.of(venv), new PrintStream(log, true, StandardCharsets.UTF_8));
    assertThat(peer.interpreter().executable()).isEqualTo("/venv/bin/python3");
    peer.interpreter();
    assertThat(log.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "fanout bench-train: the torch peer runs with " + venv + " (/venv/bin/python3)\n");
    assertThatThrownBy(() -> new TorchPeer(dir.resolve("none.py"), System.err))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--peer-script");
  }

  /**
   * The script run by a fake interpreter that prints a canned CUDA line: its variants come back.
   */
  @Test
  void runsTheScriptAndReadsItsVariants() throws Exception {
    Path line = dir.resolve("line.json");
    Files.writeString(line, CUDA_LINE);
    String py =
        fake("python", "if [ \"$1\" = -c ]; then echo /venv/bin/python3; exit 0; fi; cat " + line)
            .toString();
    Path script = fake("torch_reference.py", "exit 0");
    PeerRun r = new TorchPeer(script, List.of(py), System.err).run(dir, 1, 2, true);
    assertThat(r.variants()).containsOnlyKeys("resident", "pinned", "pipelined");
    assertThat(r.about()).containsEntry("torch_python", "/venv/bin/python3");
    String failing =
        fake("failing", "if [ \"$1\" = -c ]; then echo /x; exit 0; fi; echo partial; exit 3")
            .toString();
    assertThatThrownBy(
            () -> new TorchPeer(script, List.of(failing), System.err).run(dir, 1, 2, false))
        .hasMessageContaining("exited with status 3");
  }

  static final String CUDA_LINE =
      "{\"device\": \"cuda\", \"device_name\": \"NVIDIA H200\", \"timed_steps\": 2,"
          + " \"variants\": {"
          + "\"resident\": {\"seconds_per_step\": 0.004, \"loop_seconds_per_step\": 0.0039,"
          + " \"losses\": [4.0, 3.9, 3.8]},"
          + " \"pinned\": {\"seconds_per_step\": 0.008, \"loop_seconds_per_step\": 0.0075,"
          + " \"losses\": [4.0, 3.9, 3.8]},"
          + " \"pipelined\": {\"seconds_per_step\": 0.0041, \"loop_seconds_per_step\": 0.0041,"
          + " \"losses\": [4.0, 3.9, 3.8]}},"
          + " \"pcie_copy_ms_per_batch\": 4.0, \"pcie_gbps\": 55.5, \"x_mb_per_batch\": 223.0,"
          + " \"torch_version\": \"2.11.0\", \"torch_threads\": 16,"
          + " \"python\": \"/venv/bin/python3\"}";

  @Test
  void readsTheCudaLine() {
    PeerRun r = TorchPeer.parse("loading ...\n" + CUDA_LINE + "\n", "ref.py");
    assertThat(r.variants().keySet()).containsExactly("resident", "pinned", "pipelined");
    Timing res = r.variants().get("resident");
    assertThat(res.stepSeconds()).isEqualTo(0.004);
    assertThat(res.loopSecondsPerStep()).isEqualTo(0.0039);
    assertThat(res.losses()).containsExactly(4.0, 3.9, 3.8);
    assertThat(r.about())
        .containsEntry("torch_version", "2.11.0")
        .containsEntry("device_name", "NVIDIA H200")
        .containsEntry("pcie_copy_ms_per_batch", 4.0)
        .containsEntry("pcie_gbps", 55.5);
  }

  @Test
  void readsTheCpuLineAndRefusesOthers() {
    PeerRun r =
        TorchPeer.parse(
            "{\"device\": \"cpu\", \"seconds\": [0.2, 0.4], \"losses\": [4.1, 4.0, 3.9],"
                + " \"torch_version\": \"2.5.1\", \"torch_threads\": 2}",
            "ref.py");
    assertThat(r.variants()).containsOnlyKeys("cpu");
    assertThat(r.variants().get("cpu").stepSeconds()).isCloseTo(0.3, within());
    assertThat(r.about()).containsEntry("torch_threads", 2);
    assertThatThrownBy(() -> TorchPeer.parse("Traceback ...", "ref.py"))
        .hasMessageContaining("printed no JSON line");
    assertThatThrownBy(() -> TorchPeer.parse("{\"losses\": [1.0]}", "ref.py"))
        .hasMessageContaining("no array 'seconds'");
    assertThatThrownBy(
            () ->
                TorchPeer.parse(
                    "{\"variants\": {\"resident\": {\"seconds_per_step\": 1, \"losses\": [1]}}}",
                    "ref.py"))
        .hasMessageContaining("no number 'loop_seconds_per_step'");
  }

  /** On CUDA: per mode and variant the medians over rounds, and loop-time ratios. */
  @Test
  void reportsMediansAndLoopRatios() {
    PeerRun r = TorchPeer.parse(CUDA_LINE, "ref.py");
    double[] losses = {4.0, 3.95, 3.85};
    Map<FeatureAccessMode, List<Timing>> ours = new LinkedHashMap<>();
    ours.put(
        FeatureAccessMode.ZERO_COPY,
        List.of(
            new Timing(0.006, 0.005, losses),
            new Timing(0.007, 0.004, losses),
            new Timing(0.009, 0.006, losses)));
    ours.put(
        FeatureAccessMode.DEVICE,
        List.of(
            new Timing(0.003, 0.002, losses),
            new Timing(0.003, 0.002, losses),
            new Timing(0.003, 0.002, losses)));
    Map<String, List<Timing>> theirs = new LinkedHashMap<>();
    r.variants().forEach((k, v) -> theirs.put(k, List.of(v, v, v)));
    Map<String, Object> about2 = new LinkedHashMap<>(r.about());
    about2.put("pcie_copy_ms_per_batch", 5.0);
    Map<String, Object> about3 = new LinkedHashMap<>(r.about());
    about3.put("pcie_copy_ms_per_batch", 4.5);
    Map<String, Object> out =
        PeerReport.of("torch", ours, theirs, List.of(r.about(), about2, about3), true);
    assertThat(out.get("fanout_modes")).isEqualTo("zero-copy,device");
    assertThat((double) out.get("fanout_zero_copy_seconds_per_step")).isEqualTo(0.007);
    assertThat((double) out.get("fanout_zero_copy_loop_seconds_per_step")).isEqualTo(0.005);
    assertThat((double) out.get("fanout_zero_copy_over_torch_pipelined"))
        .isCloseTo(0.005 / 0.0041, within());
    assertThat((double) out.get("fanout_device_over_torch_resident"))
        .isCloseTo(0.002 / 0.0039, within());
    assertThat((double) out.get("pcie_copy_ms_per_batch")).isEqualTo(4.5);
    assertThat((double) out.get("fanout_zero_copy_over_copy_bound"))
        .isCloseTo(0.005 / 0.0045, within());
    assertThat(out)
        .containsEntry("torch_pinned_seconds_per_step", 0.008)
        .containsEntry("torch_resident_first_loss", 4.0)
        .containsEntry("fanout_device_last_loss", 3.85)
        .containsKeys("torch_pipelined_losses", "fanout_zero_copy_loop_seconds_per_step_by_round");
    // the line bench-train prints is JSON
    var j = readJson(BenchJson.line(out));
    assertThat(j.get("torch_variants").asText()).isEqualTo("resident,pinned,pipelined");
    assertThat(j.get("fanout_device_losses").size()).isEqualTo(3);
    assertThat(j.get("device_name").asText()).isEqualTo("NVIDIA H200");
  }

  @Test
  void autoRunsEveryModeTheBackendOffers() {
    var cpu = new io.fanout.tensor.CpuBackend();
    assertThat(PeerBenchmark.modes(FeatureAccessMode.AUTO, cpu))
        .containsExactly(FeatureAccessMode.GATHER);
    assertThat(PeerBenchmark.modes(FeatureAccessMode.GATHER, cpu))
        .containsExactly(FeatureAccessMode.GATHER);
    assertThatThrownBy(() -> PeerBenchmark.modes(FeatureAccessMode.DEVICE, cpu))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--feature-access device is measured on the CUDA backend only");
  }

  private static com.fasterxml.jackson.databind.JsonNode readJson(String line) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().readTree(line);
    } catch (java.io.IOException e) {
      throw new AssertionError("not JSON: " + line, e);
    }
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-12);
  }
}
