package io.fanout.bench.train;

import io.fanout.nn.ModelConfig;
import io.fanout.store.FileTrees;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CpuBackend;
import io.fanout.train.FeatureAccessMode;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --export-batches} and {@code --peer torch} of {@code bench-train} and of its Spark-free
 * entry: export the batches, then (with a peer) alternate rounds of Fanout and the peer over them.
 *
 * @param settings the bench-train settings; their feature access picks Fanout's modes ({@link
 *     PeerBenchmark#modes})
 * @param export the directory to keep the batches in; empty: a temporary one, removed at the end
 * @param peer the peer, or null to export only
 */
record PeerBenchmarkRun(
    TrainBenchmark.Settings settings,
    Backend backend,
    float dropout,
    String export,
    TorchPeer peer,
    int rounds) {

  PeerBenchmarkRun {
    if (!(dropout >= 0f && dropout < 1f)) {
      throw new InvalidInputException("--dropout must be in [0, 1), got " + dropout);
    }
    if (rounds < 1) {
      throw new InvalidInputException("--peer-rounds must be at least 1, got " + rounds);
    }
    if (settings.batches() < 1) {
      throw new InvalidInputException("--batches must be at least 1 to compare steps");
    }
  }

  /** The peer of {@code --peer-script} ({@code script}; empty: this checkout's), or null. */
  static TorchPeer torch(boolean wanted, String script, PrintStream log) {
    if (!wanted) {
      return null;
    }
    return new TorchPeer(
        script.isEmpty()
            ? TorchPeer.defaultScript(System.getProperty("fanout.home"))
            : Path.of(script),
        log);
  }

  /** Runs it: the fields of the one JSON line to print. */
  Map<String, Object> run(PrintStream err) {
    List<FeatureAccessMode> modes =
        peer == null ? List.of() : PeerBenchmark.modes(settings.featureAccess(), backend);
    if (peer != null) {
      peer.interpreter(); // before the export: a missing torch fails in seconds, not minutes
    }
    Path dir = export.isEmpty() ? tempDir() : Path.of(export);
    try {
      ModelConfig cfg = PeerExport.export(settings, dropout, dir);
      Map<String, Object> r = new LinkedHashMap<>();
      if (peer == null) {
        r.put("exported", dir.toAbsolutePath().toString());
        r.put("batches", settings.warmup() + settings.batches());
      } else {
        r.putAll(
            PeerBenchmark.compare(
                dir,
                cfg,
                settings.warmup(),
                settings.batches(),
                rounds,
                CpuBackend.threads(),
                peer,
                backend,
                modes));
        r.putAll(epoch(r));
      }
      r.put("dropout", dropout);
      return r;
    } finally {
      if (export.isEmpty()) {
        try {
          FileTrees.deleteRecursively(dir);
        } catch (IOException e) {
          err.println("fanout bench-train: could not remove " + dir + ": " + e.getMessage());
        }
      }
    }
  }

  /** Steps of the epoch measured beside the peer comparison: products' 196,615 seeds / 1024. */
  static final int EPOCH_STEPS = 201;

  /**
   * An epoch of {@link #EPOCH_STEPS} steps on the same graph and settings with in-process sampling
   * on the loader threads ({@link TrainBenchmark}), against that many times the step of the same
   * feature access measured on the exported batches ({@code fanout_M_loop_seconds_per_step} of
   * {@code compared}): {@code epoch_over_steps}.
   */
  Map<String, Object> epoch(Map<String, Object> compared) {
    TrainBenchmark.Settings e = settings.with(EPOCH_STEPS - 1, 1, 0, settings.featureAccess(), 0);
    Map<String, Object> run = TrainBenchmark.run(e, backend);
    String mode = String.valueOf(run.get("feature_access"));
    double perStep = ((Number) run.get("seconds_per_batch")).doubleValue();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("epoch_steps", EPOCH_STEPS);
    out.put("epoch_feature_access", mode);
    out.put("epoch_seconds", perStep * EPOCH_STEPS);
    out.put("epoch_data_wait_fraction", run.get("data_wait_fraction"));
    Object step = compared.get("fanout_" + mode.replace('-', '_') + "_loop_seconds_per_step");
    if (step instanceof Number n && n.doubleValue() > 0) {
      out.put("epoch_over_steps", perStep / n.doubleValue());
    }
    return out;
  }

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("fanout-peer-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    }
  }
}
