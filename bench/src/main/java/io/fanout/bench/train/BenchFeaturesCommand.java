package io.fanout.bench.train;

import static io.fanout.conf.options.BenchFeaturesOptions.*;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.options.BenchFeaturesOptions;
import io.fanout.features.RowCacheSizing;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreFeatureEncoding;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;

/**
 * {@code bin/fanout bench-features}: rows and bytes read from disk, epoch time and data wait of
 * {@code train --feature-cache} for belady, lru and none at cache sizes of 1%, 5% and 20% of the
 * feature bytes, on one generated store and shard set (see {@code docs/feature-cache.md}).
 */
public final class BenchFeaturesCommand implements Command {
  @Override
  public String name() {
    return "bench-features";
  }

  @Override
  public String summary() {
    return "Benchmark the feature cache (belady, lru, none): rows and bytes read, epoch time";
  }

  @Override
  public List<OptionDef<?>> options() {
    return BenchFeaturesOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) {
    FanoutConf c = ctx.conf();
    String workdir = c.get(WORK_DIR);
    FeatureCacheBenchmark.PqCodebooks pq =
        c.get(ENCODING) == StoreFeatureEncoding.PQ ? new SparkPqCodebooks(ctx, c) : null;
    Map<String, Object> r =
        FeatureCacheBenchmark.run(
            new FeatureCacheBenchmark.Settings(
                Math.toIntExact(c.get(NUM_VERTICES)),
                c.get(NUM_EDGES),
                c.get(SKEW),
                c.get(FEATURE_DIM),
                c.get(HIDDEN),
                SharedOptions.fanouts(c.get(FANOUTS)),
                c.get(BATCH_SIZE),
                c.get(BATCHES),
                c.get(BATCHES_PER_SHARD),
                c.get(LOADER_THREADS),
                c.get(PREFETCH),
                fractions(c.get(CACHE_FRACTIONS)),
                window(c.get(WINDOW)),
                c.get(ENCODING).id(),
                c.get(DIRECT_IO),
                List.of(c.get(RUNS).split(",")),
                c.get(WARMUP_EPOCH),
                workdir.isEmpty() ? null : Paths.get(workdir).toAbsolutePath(),
                c.get(KEEP),
                c.get(WRITE_ONLY)),
            pq,
            ctx.err());
    ctx.out().println(BenchJson.line(r));
    return 0;
  }

  private static int window(String v) {
    try {
      return RowCacheSizing.parseWindowBatches(v);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(
          "--window must be a number of batches from 1 to "
              + RowCacheSizing.MAX_WINDOW_BATCHES
              + ", or auto, got '"
              + v
              + "'");
    }
  }

  private static double[] fractions(String list) {
    String[] parts = list.split(",");
    double[] f = new double[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        f[i] = Double.parseDouble(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new InvalidInputException(
            "--cache-fractions must be numbers in (0, 1] separated by commas, got '" + list + "'");
      }
    }
    return f;
  }
}
