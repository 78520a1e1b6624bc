package io.fanout.bench.train;

import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backend;
import io.fanout.tensor.Backends;
import io.fanout.train.Defaults;
import io.fanout.train.HotReuse;
import io.fanout.train.TrainFeatureCache;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code bench-train} without Spark on the class path, for a GPU machine that can carry the
 * trainer's jars but not Spark's: {@code java -cp "gpu-trainer/target/classes:bench/target/classes
 * :gpu-trainer/target/gpu-lib/*" io.fanout.bench.train.TrainBenchmarkMain --backend cuda [--batches
 * 20 ...]}. Takes the options of {@code bench-train} with the same defaults except {@code
 * --verify-rounds} (0 here), and prints the same one-line JSON. With {@code --reuse-hot F} it runs
 * {@link HotReuseBenchmark} instead, as {@code bench-train --reuse-hot} does; with {@code
 * --loader-only N}, N epochs of the loader alone ({@link LoaderBenchmark}), in parts of {@code
 * --batches-per-part} batches (1).
 */
public final class TrainBenchmarkMain {
  private static final Set<String> OPTIONS =
      Set.of(
          "backend",
          "vertices",
          "edges",
          "features",
          "hidden",
          "fanouts",
          "batch-size",
          "batches",
          "warmup",
          "loader-threads",
          "prefetch",
          "feature-access",
          "feature-cache-fraction",
          "feature-cache-io-threads",
          "reuse-hot",
          "staleness",
          "hot-by",
          "reuse-refresh",
          "reuse-backward",
          "reuse-rows",
          "reuse-rounds",
          "loader-only",
          "batches-per-part");

  private TrainBenchmarkMain() {}

  public static void main(String[] args) {
    try {
      Map<String, String> o = parse(args);
      TrainBenchmark.Settings s =
          new TrainBenchmark.Settings(
              integer(o, "vertices", 2_500_000),
              Long.parseLong(o.getOrDefault("edges", "60000000")),
              integer(o, "features", 100),
              integer(o, "hidden", 256),
              fanouts(o.getOrDefault("fanouts", "15,10,5")),
              integer(o, "batch-size", 1024),
              integer(o, "batches", 20),
              integer(o, "warmup", 3),
              integer(o, "loader-threads", 2),
              integer(o, "prefetch", 2),
              8,
              0,
              o.getOrDefault("feature-access", Defaults.FEATURE_ACCESS),
              Double.parseDouble(o.getOrDefault("feature-cache-fraction", "0")),
              integer(o, "feature-cache-io-threads", TrainFeatureCache.IO_THREADS));
      if (o.containsKey("loader-only")) {
        System.out.println(
            BenchJson.line(
                LoaderBenchmark.run(
                    s, integer(o, "loader-only", 3), integer(o, "batches-per-part", 1))));
        return;
      }
      HotReuse reuse = reuse(o);
      Backend be = Backends.select(o.getOrDefault("backend", Backends.AUTO), -1);
      System.out.println(
          BenchJson.line(
              reuse.enabled()
                  ? HotReuseBenchmark.run(s, be, reuse, integer(o, "reuse-rounds", 2))
                  : TrainBenchmark.run(s, be)));
    } catch (InvalidInputException | NumberFormatException e) {
      System.err.println("fanout bench-train: error: " + e.getMessage());
      System.exit(2);
    }
  }

  static Map<String, String> parse(String[] args) {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      String k = args[i].startsWith("--") ? args[i].substring(2) : "";
      if (!OPTIONS.contains(k) || i + 1 >= args.length) {
        throw new InvalidInputException(
            "expected --OPTION VALUE pairs with OPTION one of "
                + new java.util.TreeSet<>(OPTIONS)
                + ", got '"
                + args[i]
                + "'");
      }
      o.put(k, args[i + 1]);
    }
    return o;
  }

  /**
   * The reuse settings, with {@code train}'s defaults for its GraphSAGE model (off, staleness auto,
   * by frequency, refresh auto, no backward, rows auto: inputs).
   */
  static HotReuse reuse(Map<String, String> o) {
    try {
      String backward = o.getOrDefault("reuse-backward", HotReuse.NO_BACKWARD);
      return new HotReuse(
          Double.parseDouble(o.getOrDefault("reuse-hot", "0")),
          staleness(o),
          o.getOrDefault("hot-by", HotReuse.FREQUENCY),
          o.getOrDefault("reuse-refresh", HotReuse.AUTO),
          backward,
          HotReuse.resolveRows(o.getOrDefault("reuse-rows", HotReuse.AUTO), "sage", backward));
    } catch (NumberFormatException e) {
      throw new InvalidInputException(
          "--reuse-hot expects a fraction, got '" + o.get("reuse-hot") + "'");
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(e.getMessage());
    }
  }

  /** {@code --staleness}: steps, at least 1, or auto ({@link HotReuse#AUTO_STALENESS}). */
  private static int staleness(Map<String, String> o) {
    String v = o.get("staleness");
    try {
      return v == null ? HotReuse.AUTO_STALENESS : HotReuse.parseStaleness(v);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException("staleness must be at least 1 step, got " + v + " (or auto)");
    }
  }

  private static int integer(Map<String, String> o, String k, int def) {
    String v = o.get(k);
    try {
      return v == null ? def : Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new InvalidInputException("--" + k + " expects an integer, got '" + v + "'");
    }
  }

  private static int[] fanouts(String s) {
    String[] parts = s.split(",");
    int[] f = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        f[i] = Integer.parseInt(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new InvalidInputException("--fanouts expects integers like 15,10,5, got '" + s + "'");
      }
    }
    return f;
  }
}
