package io.fanout.bench.train;

import static io.fanout.conf.options.BenchTrainOptions.*;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.conf.options.TrainPeer;
import io.fanout.nn.ModelKind;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backend;
import io.fanout.train.HotReuse;
import io.fanout.train.ReuseBackward;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code bench-train} without Spark on the class path, for a GPU machine that can carry the
 * trainer's jars but not Spark's: {@code java -cp "gpu-trainer/target/classes:bench/target/classes
 * :gpu-trainer/target/gpu-lib/*" io.fanout.bench.train.TrainBenchmarkMain --backend cuda [--batches
 * 20 ...]}. Takes the options of {@code bench-train} with the same defaults except {@code
 * --verify-rounds} (0 here), and prints the same one-line JSON. With {@code --reuse-hot F} it runs
 * {@link HotReuseBenchmark} instead, as {@code bench-train --reuse-hot} does; with {@code
 * --loader-only N}, N epochs of the loader alone ({@link LoaderBenchmark}), in parts of {@code
 * --batches-per-part} batches (1); with {@code --peer torch} or {@code --export-batches DIR}, the
 * comparison with PyTorch on exported batches ({@link PeerBenchmark}), as {@code bench-train} does.
 * The options and their defaults are {@code bench-train}'s definitions ({@link
 * io.fanout.conf.options.BenchTrainOptions#SPARK_FREE}).
 */
public final class TrainBenchmarkMain {
  private TrainBenchmarkMain() {}

  public static void main(String[] args) {
    try {
      FanoutConf c = conf(parse(args));
      TrainBenchmark.Settings s =
          new TrainBenchmark.Settings(
              Math.toIntExact(c.get(NUM_VERTICES)),
              c.get(NUM_EDGES),
              c.get(FEATURE_DIM),
              c.get(HIDDEN),
              SharedOptions.fanouts(c.get(FANOUTS)),
              c.get(BATCH_SIZE),
              c.get(BATCHES),
              c.get(WARMUP),
              c.get(LOADER_THREADS),
              c.get(PREFETCH),
              8,
              0,
              c.get(TrainCommandOptions.FEATURE_ACCESS),
              c.get(FEATURE_CACHE_FRACTION),
              c.get(FEATURE_CACHE_IO_THREADS),
              c.get(SGEMM_SIZE));
      if (c.get(LOADER_ONLY) > 0) {
        System.out.println(
            BenchJson.line(LoaderBenchmark.run(s, c.get(LOADER_ONLY), c.get(BATCHES_PER_PART))));
        return;
      }
      HotReuse reuse = reuse(c);
      Backend be = BenchBackend.select(c);
      if (!reuse.enabled()
          && (!c.get(EXPORT_BATCHES).isEmpty() || c.get(PEER) == TrainPeer.TORCH)) {
        System.out.println(BenchJson.line(peerRun(c, s, be).run(System.err)));
        return;
      }
      System.out.println(
          BenchJson.line(
              reuse.enabled()
                  ? HotReuseBenchmark.run(s, be, reuse, c.get(REUSE_ROUNDS))
                  : TrainBenchmark.run(s, be)));
    } catch (InvalidInputException | FanoutConfigException e) {
      System.err.println("fanout bench-train: error: " + e.getMessage());
      System.exit(2);
    }
  }

  /** {@code --export-batches} / {@code --peer torch}: as {@code bench-train}'s. */
  static PeerBenchmarkRun peerRun(FanoutConf c, TrainBenchmark.Settings s, Backend be) {
    return new PeerBenchmarkRun(
        s,
        be,
        c.get(DROPOUT).floatValue(),
        c.get(EXPORT_BATCHES),
        PeerBenchmarkRun.torch(c.get(PEER) == TrainPeer.TORCH, c.get(PEER_SCRIPT), System.err),
        c.get(PEER_ROUNDS));
  }

  /** {@code --OPTION VALUE} pairs, each OPTION one of {@code BenchTrainOptions.SPARK_FREE}. */
  static Map<String, String> parse(String[] args) {
    TreeSet<String> known = new TreeSet<>();
    for (OptionDef<?> d : SPARK_FREE) {
      known.add(d.name());
    }
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      String k = args[i].startsWith("--") ? args[i].substring(2) : "";
      if (!known.contains(k) || i + 1 >= args.length) {
        throw new InvalidInputException(
            "expected --OPTION VALUE pairs with OPTION one of "
                + known
                + ", got '"
                + args[i]
                + "'");
      }
      o.put(k, args[i + 1]);
    }
    return o;
  }

  static FanoutConf conf(Map<String, String> options) {
    return FanoutConf.of("bench-train", SPARK_FREE, options);
  }

  /**
   * The reuse settings, with {@code train}'s defaults for its GraphSAGE model (off, staleness auto,
   * by frequency, refresh auto, no backward, rows auto: inputs).
   */
  static HotReuse reuse(Map<String, String> o) {
    return reuse(conf(o));
  }

  private static HotReuse reuse(FanoutConf c) {
    double fraction;
    try {
      fraction = c.get(TrainCommandOptions.REUSE_HOT);
    } catch (FanoutConfigException e) {
      throw new InvalidInputException(
          "--reuse-hot expects a fraction, got '" + c.raw(TrainCommandOptions.REUSE_HOT) + "'");
    }
    int staleness;
    try {
      staleness = c.get(TrainCommandOptions.STALENESS);
    } catch (FanoutConfigException e) {
      throw new InvalidInputException(
          "staleness must be at least 1 step, got "
              + c.raw(TrainCommandOptions.STALENESS)
              + " (or auto)");
    }
    try {
      ReuseBackward backward = c.get(TrainCommandOptions.REUSE_BACKWARD);
      return new HotReuse(
          fraction,
          staleness,
          c.get(TrainCommandOptions.HOT_BY),
          c.get(TrainCommandOptions.REUSE_REFRESH),
          backward,
          HotReuse.resolveRows(c.get(TrainCommandOptions.REUSE_ROWS), ModelKind.SAGE, backward));
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(e.getMessage());
    }
  }
}
