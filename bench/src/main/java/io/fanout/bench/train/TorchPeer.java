package io.fanout.bench.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.bench.train.PeerBenchmark.PeerRun;
import io.fanout.bench.train.PeerBenchmark.Timing;
import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The PyTorch side of {@code bench-train --peer torch}: runs {@code bench/torch_reference.py} over
 * an export directory and reads the one JSON line it prints. The interpreter is the first of {@link
 * #INTERPRETERS} that imports torch and numpy ({@code python3} on {@code PATH}, e.g. a
 * virtualenv's, then Debian's {@code /usr/bin/python3}); nothing is installed.
 */
final class TorchPeer implements PeerBenchmark.Peer {
  /** The interpreters tried, in order. */
  static final List<String> INTERPRETERS = List.of("python3", "/usr/bin/python3");

  private static final String PROBE = "import sys, torch, numpy; print(sys.executable)";
  private static final long PROBE_SECONDS = 120;

  private final Path script;
  private final List<String> candidates;
  private final PrintStream log;
  private Interpreter python;

  /** The interpreter chosen: as tried, and the executable it reported. */
  record Interpreter(String command, String executable) {}

  TorchPeer(Path script, PrintStream log) {
    this(script, INTERPRETERS, log);
  }

  TorchPeer(Path script, List<String> candidates, PrintStream log) {
    if (!Files.isRegularFile(script)) {
      throw new InvalidInputException(
          "--peer-script "
              + script
              + ": no such file; give the path of bench/torch_reference.py from Fanout's"
              + " repository");
    }
    this.script = script;
    this.candidates = List.copyOf(candidates);
    this.log = log;
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

  /**
   * The first candidate that imports torch and numpy, found once and said on the log; throws
   * InvalidInputException naming every candidate tried when none does.
   */
  synchronized Interpreter interpreter() {
    if (python == null) {
      python = find(candidates);
      log.println(
          "fanout bench-train: the torch peer runs with "
              + python.command()
              + " ("
              + python.executable()
              + ")");
    }
    return python;
  }

  static Interpreter find(List<String> candidates) {
    List<String> why = new ArrayList<>();
    for (String c : candidates) {
      try {
        Process p =
            new ProcessBuilder(c, "-c", PROBE)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        // the probe prints one short line, which the pipe holds until the process has exited
        if (!p.waitFor(PROBE_SECONDS, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          why.add(c + ": no answer in " + PROBE_SECONDS + " s");
          continue;
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.exitValue() == 0 && !out.isEmpty()) {
          String[] lines = out.split("\n");
          return new Interpreter(c, lines[lines.length - 1].strip());
        } else {
          why.add(c + ": cannot import torch and numpy");
        }
      } catch (IOException e) {
        why.add(c + ": cannot run (" + e.getMessage() + ")");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while looking for python", e);
      }
    }
    throw new InvalidInputException(
        "--peer torch needs a Python that imports torch and numpy; tried "
            + String.join("; ", why));
  }

  @Override
  public PeerRun run(Path dir, int warmup, int threads, boolean cuda) {
    Interpreter py = interpreter();
    ProcessBuilder pb =
        new ProcessBuilder(
                List.of(
                    py.command(),
                    script.toString(),
                    dir.toString(),
                    "--warmup",
                    Integer.toString(warmup),
                    "--threads",
                    Integer.toString(threads),
                    "--device",
                    cuda ? "cuda" : "cpu"))
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    // PyTorch's products on the CPU go to the same OpenBLAS, with its default of a thread per core:
    // give it the benchmark's thread count, not bin/fanout's OPENBLAS_NUM_THREADS=1 (Fanout's own
    // setting: it splits the products over its threads itself).
    pb.environment().put("OPENBLAS_NUM_THREADS", Integer.toString(threads));
    String out;
    int rc;
    try {
      Process p = pb.start();
      out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      rc = p.waitFor();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + py.command() + " " + script, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the torch peer ran", e);
    }
    if (rc != 0) {
      throw new IllegalStateException(
          script + " exited with status " + rc + " (its messages are above); output: " + out);
    }
    PeerRun run = parse(out, script.toString());
    run.about().put("torch_python", py.executable());
    return run;
  }

  /**
   * The run {@code out}'s last line reports: on CUDA per variant ({@code variants}: {@code
   * seconds_per_step}, {@code loop_seconds_per_step}, {@code losses}) with the copy bound and the
   * device; on the CPU one variant {@code cpu} from {@code seconds} (per timed step) and {@code
   * losses}.
   */
  static PeerRun parse(String out, String source) {
    String[] lines = out.strip().split("\n");
    String line = lines[lines.length - 1].strip();
    if (!line.startsWith("{")) {
      throw new IllegalStateException(source + " printed no JSON line; output: " + out);
    }
    JsonNode j;
    try {
      j = new ObjectMapper().readTree(line);
    } catch (IOException e) {
      throw new IllegalStateException(source + " printed what is not JSON: " + line, e);
    }
    Map<String, Timing> variants = new LinkedHashMap<>();
    Map<String, Object> about = new LinkedHashMap<>();
    about.put("torch_version", j.path("torch_version").asText());
    if (j.has("variants")) {
      Iterator<Map.Entry<String, JsonNode>> it = j.get("variants").fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> v = it.next();
        variants.put(
            v.getKey(),
            new Timing(
                number(v.getValue(), "seconds_per_step", source),
                number(v.getValue(), "loop_seconds_per_step", source),
                doubles(v.getValue(), "losses", source)));
      }
      about.put("device_name", j.path("device_name").asText());
      for (String k : List.of("pcie_copy_ms_per_batch", "pcie_gbps", "x_mb_per_batch")) {
        about.put(k, number(j, k, source));
      }
    } else {
      double[] seconds = doubles(j, "seconds", source);
      double mean = PeerBenchmark.mean(seconds);
      variants.put("cpu", new Timing(mean, mean, doubles(j, "losses", source)));
      about.put("torch_threads", j.path("torch_threads").asInt());
    }
    if (variants.isEmpty()) {
      throw new IllegalStateException(source + " reported no variant: " + line);
    }
    return new PeerRun(variants, about);
  }

  private static double number(JsonNode j, String field, String source) {
    JsonNode n = j.get(field);
    if (n == null || !n.isNumber()) {
      throw new IllegalStateException(source + " reported no number '" + field + "': " + j);
    }
    return n.asDouble();
  }

  private static double[] doubles(JsonNode j, String field, String source) {
    JsonNode a = j.get(field);
    if (a == null || !a.isArray() || a.isEmpty()) {
      throw new IllegalStateException(source + " reported no array '" + field + "': " + j);
    }
    double[] out = new double[a.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = a.get(i).asDouble();
    }
    return out;
  }
}
