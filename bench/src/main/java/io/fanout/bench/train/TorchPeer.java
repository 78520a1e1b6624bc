package io.fanout.bench.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The PyTorch side of {@code bench-train --peer torch}: runs {@code bench/torch_reference.py} over
 * an export directory with Debian's Python (where {@code python3-torch} installs) and reads the one
 * JSON line it prints.
 */
final class TorchPeer implements PeerBenchmark.Peer {
  private static final Path DEBIAN_PYTHON = Path.of("/usr/bin/python3");
  private final Path script;

  TorchPeer(Path script) {
    if (!Files.isRegularFile(script)) {
      throw new InvalidInputException(
          "--peer-script "
              + script
              + ": no such file; give the path of bench/torch_reference.py from Fanout's"
              + " repository");
    }
    this.script = script;
  }

  /** {@code bench/torch_reference.py} under {@code home} (bin/fanout's root), else the cwd's. */
  static Path defaultScript(String home) {
    Path rel = Path.of("bench", "torch_reference.py");
    return home == null || home.isEmpty() ? rel.toAbsolutePath() : Path.of(home).resolve(rel);
  }

  @Override
  public String name() {
    return "torch";
  }

  @Override
  public PeerBenchmark.Result run(Path dir, int warmup, int threads) {
    String python = Files.isExecutable(DEBIAN_PYTHON) ? DEBIAN_PYTHON.toString() : "python3";
    ProcessBuilder pb =
        new ProcessBuilder(
                List.of(
                    python,
                    script.toString(),
                    dir.toString(),
                    "--warmup",
                    Integer.toString(warmup),
                    "--threads",
                    Integer.toString(threads)))
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    // PyTorch's products go to the same OpenBLAS, with its default of a thread per core: give it
    // the benchmark's thread count, not bin/fanout's OPENBLAS_NUM_THREADS=1 (Fanout's own setting:
    // it splits the products over its threads itself).
    pb.environment().put("OPENBLAS_NUM_THREADS", Integer.toString(threads));
    String out;
    int rc;
    try {
      Process p = pb.start();
      out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      rc = p.waitFor();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + python + " " + script, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the torch peer ran", e);
    }
    String[] lines = out.strip().split("\n");
    if (rc != 0 || lines.length == 0 || !lines[lines.length - 1].startsWith("{")) {
      throw new IllegalStateException(
          script + " exited with status " + rc + " (its messages are above); output: " + out);
    }
    try {
      JsonNode j = new ObjectMapper().readTree(lines[lines.length - 1]);
      Map<String, Object> about = new LinkedHashMap<>();
      about.put("torch_version", j.path("torch_version").asText());
      about.put("torch_threads", j.path("torch_threads").asInt());
      return new PeerBenchmark.Result(doubles(j.get("seconds")), doubles(j.get("losses")), about);
    } catch (IOException e) {
      throw new IllegalStateException(script + " printed what is not JSON: " + out, e);
    }
  }

  private static double[] doubles(JsonNode a) {
    double[] out = new double[a.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = a.get(i).asDouble();
    }
    return out;
  }
}
