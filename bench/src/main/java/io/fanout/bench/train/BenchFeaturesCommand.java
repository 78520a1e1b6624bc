package io.fanout.bench.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.features.RowCacheSizing;
import io.fanout.spark.prepare.QuantizeOptions;
import io.fanout.spark.train.TrainOptionsDefs;
import io.fanout.store.InvalidInputException;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;

/**
 * {@code bin/fanout bench-features}: rows and bytes read from disk, epoch time and data wait of
 * {@code train --feature-cache} for belady, lru and none at cache sizes of 1%, 5% and 20% of the
 * feature bytes, on one generated store and shard set (see {@code docs/features.md}).
 */
public final class BenchFeaturesCommand implements Command {
  static final OptionDef<Integer> VERTICES =
      OptionDef.integer("vertices", 500_000, "vertices of the generated graph");
  static final OptionDef<Long> EDGES =
      OptionDef.longValue("edges", 10_000_000L, "edges of the generated graph (about)");
  static final OptionDef<Double> SKEW =
      OptionDef.doubleValue(
          "skew",
          2.0,
          "in-neighbor skew K of the generated graph: neighbor ids drawn as n x r^K, so the 5%"
              + " most-named vertices hold about 0.05^(1/K) of the neighbor entries (2: 22%; 1:"
              + " uniform); inspect reports a store's share");
  static final OptionDef<Integer> FEATURES = OptionDef.integer("features", 100, "feature dim");
  static final OptionDef<Integer> HIDDEN = OptionDef.integer("hidden", 64, "hidden width");
  static final OptionDef<String> FANOUTS =
      OptionDef.string("fanouts", "10,5", "fanouts (one per layer)");
  static final OptionDef<Integer> BATCH_SIZE =
      OptionDef.integer("batch-size", 1024, "seeds per batch");
  static final OptionDef<Integer> BATCHES =
      OptionDef.integer("batches", 100, "batches of the epoch (distinct shuffled seeds)");
  static final OptionDef<Integer> BATCHES_PER_SHARD =
      OptionDef.integer("batches-per-shard", 8, "batches per shard part");
  static final OptionDef<Integer> LOADER_THREADS =
      OptionDef.integer("loader-threads", 2, "background threads reading and decoding shards");
  static final OptionDef<Integer> PREFETCH = OptionDef.integer("prefetch", 2, "batches kept ready");
  static final OptionDef<String> CACHE_FRACTIONS =
      OptionDef.string(
          "cache-fractions",
          "0.01,0.05,0.2",
          "cache sizes for belady and lru, as fractions of the feature bytes on disk");
  static final OptionDef<String> WINDOW =
      OptionDef.string(
          "window",
          "32",
          "batches belady plans ahead at a time, as train --feature-cache-window (a number, or"
              + " auto)");
  static final OptionDef<String> ENCODING =
      OptionDef.choice(
          "encoding",
          "f32",
          "the store's feature encoding; int8/int4/pq rows are generated and encoded one at a time"
              + " (no float32 copy in memory); pq codebooks by Spark MLlib's KMeans as in quantize",
          "f32",
          "int8",
          "int4",
          "pq");
  static final OptionDef<Boolean> DIRECT_IO =
      OptionDef.bool(
          "direct-io",
          false,
          "read the feature files with O_DIRECT, bypassing the page cache (every read goes to"
              + " the device)");
  static final OptionDef<String> RUNS =
      OptionDef.string(
          "runs", "mapped,none,belady,lru", "which runs to make (some of mapped,none,belady,lru)");
  static final OptionDef<Boolean> WARMUP =
      OptionDef.bool("warmup", true, "train one untimed memory-mapped epoch first");
  static final OptionDef<String> WORKDIR =
      OptionDef.string(
          "workdir",
          "",
          "folder for the store and shards (default: a temporary one); a folder a kept run wrote"
              + " with the same settings is reused");
  static final OptionDef<Boolean> KEEP =
      OptionDef.bool("keep", false, "leave the store and shards in --workdir for a later run");
  static final OptionDef<Boolean> WRITE_ONLY =
      OptionDef.bool(
          "write-only",
          false,
          "write (or find) the store and shards in --workdir, keep them, and train nothing");

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
    return List.of(
        VERTICES,
        EDGES,
        SKEW,
        FEATURES,
        HIDDEN,
        FANOUTS,
        BATCH_SIZE,
        BATCHES,
        BATCHES_PER_SHARD,
        LOADER_THREADS,
        PREFETCH,
        CACHE_FRACTIONS,
        WINDOW,
        ENCODING,
        DIRECT_IO,
        RUNS,
        WARMUP,
        WORKDIR,
        KEEP,
        WRITE_ONLY,
        QuantizeOptions.PQ_GROUP_SIZE,
        QuantizeOptions.PQ_SAMPLE_ROWS,
        QuantizeOptions.PQ_SEED);
  }

  @Override
  public int run(CommandContext ctx) {
    FanoutConf c = ctx.conf();
    String workdir = c.get(WORKDIR);
    FeatureCacheBenchmark.PqCodebooks pq =
        c.get(ENCODING).equals("pq") ? new SparkPqCodebooks(ctx, c) : null;
    Map<String, Object> r =
        FeatureCacheBenchmark.run(
            new FeatureCacheBenchmark.Settings(
                c.get(VERTICES),
                c.get(EDGES),
                c.get(SKEW),
                c.get(FEATURES),
                c.get(HIDDEN),
                TrainOptionsDefs.fanouts(c.get(FANOUTS)),
                c.get(BATCH_SIZE),
                c.get(BATCHES),
                c.get(BATCHES_PER_SHARD),
                c.get(LOADER_THREADS),
                c.get(PREFETCH),
                fractions(c.get(CACHE_FRACTIONS)),
                window(c.get(WINDOW)),
                c.get(ENCODING),
                c.get(DIRECT_IO),
                List.of(c.get(RUNS).split(",")),
                c.get(WARMUP),
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
