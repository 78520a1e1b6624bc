package io.fanout.bench.train;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.BenchOutOfCoreOptions;
import io.fanout.store.InvalidInputException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code bench-out-of-core} without Spark on the class path, for a machine that carries the
 * trainer's and the benchmarks' classes only: {@code java -cp CLASSPATH
 * io.fanout.bench.train.OutOfCoreBenchmarkMain [--batches 50 ...]} takes the command's options
 * ({@link BenchOutOfCoreOptions#ALL}) as {@code --OPTION VALUE} pairs and prints the same one-line
 * JSON.
 */
public final class OutOfCoreBenchmarkMain {
  private OutOfCoreBenchmarkMain() {}

  public static void main(String[] args) {
    try {
      FanoutConf c = FanoutConf.of("bench-out-of-core", BenchOutOfCoreOptions.ALL, parse(args));
      System.out.println(
          BenchJson.line(OutOfCoreBenchmark.run(OutOfCoreBenchmark.settings(c), System.err)));
    } catch (InvalidInputException | FanoutConfigException e) {
      System.err.println("fanout bench-out-of-core: error: " + e.getMessage());
      System.exit(2);
    }
  }

  static Map<String, String> parse(String[] args) {
    TreeSet<String> known = new TreeSet<>();
    for (OptionDef<?> d : BenchOutOfCoreOptions.ALL) {
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
}
