package io.fanout.train;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureFiles;
import io.fanout.features.OfflineMin;
import io.fanout.features.RowCache;
import io.fanout.graph.GraphStore;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.shard.BatchCodec;
import io.fanout.shard.ShardFileReader;
import io.fanout.store.FileTrees;
import io.fanout.tensor.Backends;
import io.fanout.tensor.CounterRng;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code train --feature-cache} reads from disk: a {@link BenchGraph} is written as a graph
 * store and one epoch of shuffled seeds as node-id shards to a temporary directory; then one epoch
 * is trained from them per run (each its own {@link Trainer#fit}, same model seed): once through
 * the memory-mapped store, once with {@code none}, and with {@code belady} and {@code lru} at every
 * cache size (a fraction of the feature bytes). Each run reports the rows, bytes and read calls its
 * {@link FeatureFiles} issued, the cache's hits and misses, the epoch's wall time and data-wait
 * fraction. Next to them, {@link OfflineMin}: the fewest rows any cache of that size could read for
 * the epoch's whole access sequence, known in advance (the shards fix it), against which the
 * windowed {@code belady} and {@code lru} are measured.
 *
 * <p>The counts are the application's reads, which positional reads turn into file reads one for
 * one; the kernel's page cache may still serve them from memory (nothing here evicts it), so the
 * times are those of a warm page cache: a lower bound of a cold disk's.
 */
public final class FeatureCacheBenchmark {
  private FeatureCacheBenchmark() {}

  /** I/O threads of each run's disk reader, as {@code train} uses. */
  private static final int IO_THREADS = 4;

  /**
   * @param fractions cache sizes as fractions of the feature bytes
   */
  public record Settings(
      int vertices,
      long edges,
      int features,
      int hidden,
      int[] fanouts,
      int batchSize,
      int batches,
      int batchesPerShard,
      int loaderThreads,
      int prefetch,
      double[] fractions) {}

  public static Map<String, Object> run(Settings s) {
    BenchGraph bg = BenchGraph.generate(s.vertices(), s.edges(), s.features());
    int n = s.vertices();
    int[] seeds = shuffledSeeds(n, Math.min(n, s.batches() * s.batchSize()));
    Path dir;
    try {
      dir = Files.createTempDirectory("fanout-bench-features");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    }
    try {
      Path storeDir = dir.resolve("store");
      VerificationBenchmark.writeStore(
          storeDir, bg.csr(), bg.features(), bg.dim(), bg.vertices(), bg.classes());
      Path shardDir = dir.resolve("shards");
      VerificationBenchmark.writeShards(
          shardDir,
          bg.csr(),
          bg.vertices(),
          seeds,
          s.batchSize(),
          s.batchesPerShard(),
          s.fanouts());
      ModelConfig cfg = bg.sageConfig(s.hidden(), s.fanouts().length, 0.5f);
      long featureBytes = (long) n * s.features() * 4;
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("vertices", n);
      out.put("edges", bg.csr().numEdges());
      out.put("features", s.features());
      out.put("feature_bytes", featureBytes);
      out.put("fanouts", java.util.Arrays.toString(s.fanouts()));
      out.put("batch_size", s.batchSize());
      out.put("window_batches", PipelinedLoader.CACHE_WINDOW);
      try (GraphStore store = GraphStore.open(storeDir)) {
        ShardSet shards = ShardSet.open(shardDir);
        out.put("batches", shards.manifest().batchesPerEpoch);
        // A warm-up epoch (JIT, page cache), not reported.
        epoch(store, shards, cfg, s, null, 0, dir, new LinkedHashMap<>(), "warmup");
        epoch(store, shards, cfg, s, null, 0, dir, out, "mapped");
        epoch(store, shards, cfg, s, CachePolicy.NONE, 0, dir, out, "none");
        int[] access = accesses(shards);
        out.put("epoch_row_accesses", access.length);
        long rowBytes = store.featureParams().rowBytes();
        for (double f : s.fractions()) {
          long bytes = Math.round(f * featureBytes);
          String pct = String.format(Locale.ROOT, "%dpct", Math.round(f * 100));
          out.put("cache_" + pct + "_bytes", bytes);
          long optimum =
              OfflineMin.misses(access, access.length, n, (int) Math.min(n, bytes / rowBytes));
          out.put("offline_min_" + pct + "_rows_read", optimum);
          for (CachePolicy p : List.of(CachePolicy.BELADY, CachePolicy.LRU)) {
            epoch(store, shards, cfg, s, p, bytes, dir, out, p.id() + "_" + pct);
          }
          Object b = out.get("belady_" + pct + "_rows_read");
          Object l = out.get("lru_" + pct + "_rows_read");
          out.put(
              "lru_over_belady_rows_read_" + pct,
              ((Number) l).doubleValue() / Math.max(1, ((Number) b).doubleValue()));
          out.put(
              "belady_over_offline_min_rows_read_" + pct,
              ((Number) b).doubleValue() / Math.max(1, optimum));
          out.put(
              "lru_over_offline_min_rows_read_" + pct,
              ((Number) l).doubleValue() / Math.max(1, optimum));
        }
      }
      return out;
    } finally {
      try {
        FileTrees.deleteRecursively(dir);
      } catch (IOException e) {
        System.err.println("bench-features: could not delete " + dir + ": " + e);
      }
    }
  }

  /** Trains one epoch; {@code policy} null: the memory-mapped store. */
  private static void epoch(
      GraphStore store,
      ShardSet shards,
      ModelConfig cfg,
      Settings s,
      CachePolicy policy,
      long bytes,
      Path dir,
      Map<String, Object> out,
      String key) {
    RowCache cache =
        policy == null ? null : new RowCache(FeatureFiles.open(store, IO_THREADS), policy, bytes);
    try {
      EpochData data =
          shards.epochData(
              store.features(),
              cache,
              cfg.inDim(),
              cfg.featureNorm(),
              s.loaderThreads(),
              s.prefetch(),
              false);
      Trainer trainer =
          new Trainer(
              new GnnModel(cfg, Backends.select()),
              new TrainOptions(1, 0.003f, 0f, LrSchedule.CONSTANT, 1),
              GradientReducer.LOCAL);
      EpochStats st =
          trainer.fit(data, null, dir.resolve("model-" + key), false, Map.of(), null, 0).get(0);
      if (cache != null) {
        out.put(key + "_rows_read", cache.files().rowsRead());
        out.put(key + "_bytes_read", cache.files().bytesRead());
        out.put(key + "_read_calls", cache.files().reads());
        out.put(key + "_hits", cache.hits());
        out.put(key + "_misses", cache.misses());
      }
      out.put(key + "_epoch_seconds", st.seconds());
      out.put(key + "_data_wait_fraction", st.waitFraction());
    } finally {
      if (cache != null) {
        cache.close();
      }
    }
  }

  /**
   * The epoch's row accesses in the order a cache sees them: every batch's node ids, batches in
   * shard order (the order {@link PipelinedLoader} gathers them).
   */
  private static int[] accesses(ShardSet shards) {
    int[] seq = new int[1024];
    int len = 0;
    for (Path f : shards.files(0)) {
      try (ShardFileReader r = new ShardFileReader(f)) {
        while (r.hasNext()) {
          int[] nodes = BatchCodec.decode(r.next()).nodes();
          if (len + nodes.length > seq.length) {
            seq = java.util.Arrays.copyOf(seq, Math.max(len + nodes.length, seq.length * 2));
          }
          System.arraycopy(nodes, 0, seq, len, nodes.length);
          len += nodes.length;
        }
      }
    }
    return java.util.Arrays.copyOf(seq, len);
  }

  /** {@code count} distinct vertices in a seeded random order. */
  private static int[] shuffledSeeds(int n, int count) {
    int[] all = new int[n];
    for (int i = 0; i < n; i++) {
      all[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = (int) (CounterRng.uniform(21, i) * (i + 1));
      int t = all[i];
      all[i] = all[j];
      all[j] = t;
    }
    return java.util.Arrays.copyOf(all, count);
  }
}
