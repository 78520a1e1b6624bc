package io.fanout.bench.train;

import io.fanout.bench.store.InMemoryGraphStores;
import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureFiles;
import io.fanout.features.OfflineMin;
import io.fanout.features.RowCache;
import io.fanout.features.RowCacheSizing;
import io.fanout.graph.GraphStore;
import io.fanout.graph.NeighborSkew;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.shard.BatchCodec;
import io.fanout.shard.ShardFileReader;
import io.fanout.store.FeatureParams;
import io.fanout.store.FileTrees;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.Backends;
import io.fanout.tensor.CounterRng;
import io.fanout.train.EpochData;
import io.fanout.train.EpochStats;
import io.fanout.train.GradientReducer;
import io.fanout.train.PipelinedLoader;
import io.fanout.train.ShardSet;
import io.fanout.train.TrainFeatureCache;
import io.fanout.train.TrainOptions;
import io.fanout.train.Trainer;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
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
 * windowed {@code belady} and {@code lru} are measured; and {@link CapacityBound}, what the cache's
 * size alone forces any policy to read, which the optimum meets where the size is the limit.
 *
 * <p>The counts are the application's reads, which positional reads turn into file reads one for
 * one. Without {@code directIo} the kernel's page cache may still serve them from memory (nothing
 * here evicts it), so the times are those of a warm page cache: a lower bound of a cold disk's.
 * With {@code directIo} every read goes to the device ({@code O_DIRECT}, see {@link FeatureFiles}).
 *
 * <p>The store's rows may be stored {@code int8} or {@code int4} (per-column affine over the
 * generated values' minima and maxima) or {@code pq} (codebooks from {@link PqCodebooks}); then
 * they are computed and encoded one row at a time and no float32 copy of them is ever held, so the
 * feature file can be larger than the process's memory. A kept work folder ({@link Settings#keep})
 * lets one process write the store and another, under a memory limit, train from it.
 */
public final class FeatureCacheBenchmark {
  private FeatureCacheBenchmark() {}

  /** The runs, in the order they are made. */
  public static final List<String> RUNS = List.of("mapped", "none", "belady", "lru");

  /** The encodings the benchmark can write its store in. */
  public static final List<String> ENCODINGS = List.of("f32", "int8", "int4", "pq");

  /** What a kept work folder records of the settings its store and shards were written with. */
  static final String INPUTS_FILE = "bench-features.properties";

  /**
   * Trains a {@code pq} store's codebooks. Spark MLlib's {@code KMeans} lives above this module, so
   * the command supplies it.
   */
  public interface PqCodebooks {
    /**
     * The pq parameters of {@code vertices} generated rows of {@code dim} columns, each of which
     * {@code rows} computes on demand.
     */
    FeatureParams train(int vertices, int dim, InMemoryGraphStores.RowSource rows);

    /** The options that decide the codebooks, recorded with a kept store. */
    String options();
  }

  /**
   * @param skew the generated graph's in-neighbor skew ({@link BenchGraph#generate(int, long, int,
   *     boolean, double)})
   * @param fractions cache sizes as fractions of the feature bytes (encoded, as on disk)
   * @param window batches {@code belady} plans at a time, or {@link RowCacheSizing#AUTO_WINDOW}
   * @param encoding the store's feature encoding, one of {@link #ENCODINGS}
   * @param directIo read the feature files with {@code O_DIRECT}
   * @param runs which of {@link #RUNS} to make
   * @param warmup train one untimed memory-mapped epoch first
   * @param workdir where the store and shards go; null: a temporary folder
   * @param keep leave the store and shards in {@code workdir}, for a later run to reuse
   * @param writeOnly write (or find) the store and shards and train nothing
   */
  public record Settings(
      int vertices,
      long edges,
      double skew,
      int features,
      int hidden,
      int[] fanouts,
      int batchSize,
      int batches,
      int batchesPerShard,
      int loaderThreads,
      int prefetch,
      double[] fractions,
      int window,
      String encoding,
      boolean directIo,
      List<String> runs,
      boolean warmup,
      Path workdir,
      boolean keep,
      boolean writeOnly) {
    public Settings {
      if (!ENCODINGS.contains(encoding)) {
        throw new InvalidInputException(
            "--encoding must be one of "
                + String.join(", ", ENCODINGS)
                + ", got '"
                + encoding
                + "'");
      }
      if (!(skew >= 1 && skew <= 64)) {
        throw new InvalidInputException(
            "--skew must be in [1, 64] (1: uniform in-neighbors, 2: the default), got " + skew);
      }
      if (window < 0) {
        throw new InvalidInputException(
            "--window must be a number of batches >= 1, or auto, got " + window);
      }
      if (runs.isEmpty()) {
        throw new InvalidInputException("--runs names no run; expected some of " + RUNS);
      }
      for (String r : runs) {
        if (!RUNS.contains(r)) {
          throw new InvalidInputException(
              "--runs: unknown run '" + r + "'; expected some of " + String.join(",", RUNS));
        }
      }
      for (double f : fractions) {
        if (!(f > 0 && f <= 1)) {
          throw new InvalidInputException(
              "--cache-fractions must be in (0, 1] (a fraction of the feature bytes), got " + f);
        }
      }
      if ((keep || writeOnly) && workdir == null) {
        throw new InvalidInputException(
            (writeOnly ? "--write-only" : "--keep")
                + " true needs --work-dir (a temporary folder is deleted at the end)");
      }
    }

    /** The settings that decide the store and shards, as a kept work folder records them. */
    Map<String, String> inputs(PqCodebooks pq) {
      Map<String, String> m = new LinkedHashMap<>();
      m.put("vertices", Integer.toString(vertices));
      m.put("edges", Long.toString(edges));
      if (skew != BenchGraph.DEFAULT_SKEW) {
        m.put("skew", Double.toString(skew));
      }
      m.put("features", Integer.toString(features));
      m.put("encoding", encoding);
      if (pq != null) {
        m.put("pq", pq.options());
      }
      m.put("fanouts", java.util.Arrays.toString(fanouts));
      m.put("batch_size", Integer.toString(batchSize));
      m.put("batches", Integer.toString(batches));
      m.put("batches_per_shard", Integer.toString(batchesPerShard));
      return m;
    }
  }

  /**
   * Writes the store and shards (or finds them in a kept work folder written with the same
   * settings) and makes the runs.
   *
   * @param pq trains the codebooks of a {@code pq} store; null for the other encodings
   * @param log where a line announces each long phase as it starts
   */
  public static Map<String, Object> run(Settings s, PqCodebooks pq, PrintStream log) {
    if (s.encoding().equals("pq") != (pq != null)) {
      throw new IllegalArgumentException("pq codebooks go with --encoding pq only");
    }
    boolean temporary = s.workdir() == null;
    Path dir;
    try {
      dir = temporary ? Files.createTempDirectory("fanout-bench-features") : s.workdir();
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the work folder " + s.workdir(), e);
    }
    Path storeDir = dir.resolve("store");
    Path shardDir = dir.resolve("shards");
    Path scratch = dir.resolve("runs");
    Map<String, String> inputs = s.inputs(pq);
    Map<String, Object> out = new LinkedHashMap<>();
    // before the try: a folder of other settings is refused, not cleaned up
    boolean reused = !temporary && BenchInputs.matches(dir.resolve(INPUTS_FILE), inputs);
    try {
      out.put("vertices", s.vertices());
      out.put("features", s.features());
      out.put("encoding", s.encoding());
      out.put("direct_io", s.directIo());
      out.put("fanouts", java.util.Arrays.toString(s.fanouts()));
      out.put("batch_size", s.batchSize());
      out.put("hidden", s.hidden());
      out.put("window", s.window() == RowCacheSizing.AUTO_WINDOW ? "auto" : s.window());
      if (!temporary) {
        out.put("workdir", dir.toString());
        out.put("reused", reused);
      }
      if (!reused) {
        write(s, pq, storeDir, shardDir, out, log);
        if (!temporary) {
          BenchInputs.write(dir.resolve(INPUTS_FILE), inputs);
        }
      }
      try (GraphStore store = GraphStore.open(storeDir)) {
        out.put("edges", store.manifest().edges);
        long rowBytes = store.featureParams().rowBytes();
        long featureBytes = s.vertices() * rowBytes;
        out.put("feature_row_bytes", rowBytes);
        out.put("feature_bytes", featureBytes);
        if (pq != null) {
          out.put("pq_group_size", store.featureParams().groupSize);
          out.put("compression_vs_f32", 4.0 * s.features() / rowBytes);
        }
        ShardSet shards = ShardSet.open(shardDir);
        out.put("batches", shards.manifest().batchesPerEpoch);
        if (!s.writeOnly()) {
          runs(s, store, shards, featureBytes, scratch, out, log);
        }
      }
      long hwm = peakRss();
      if (hwm > 0) {
        out.put("process_peak_rss_bytes", hwm);
      }
      return out;
    } finally {
      cleanUp(temporary ? List.of(dir) : List.of(scratch));
      if (!temporary && !s.keep() && !s.writeOnly()) {
        cleanUp(List.of(dir.resolve(INPUTS_FILE), storeDir, shardDir));
      }
    }
  }

  /** A line on stderr as each long phase starts (the JSON line goes to stdout at the end). */
  private static void phase(PrintStream log, String what) {
    log.println("bench-features: " + what);
  }

  private static void cleanUp(List<Path> paths) {
    for (Path p : paths) {
      try {
        if (Files.isDirectory(p)) {
          FileTrees.deleteRecursively(p);
        } else {
          Files.deleteIfExists(p);
        }
      } catch (IOException e) {
        System.err.println("bench-features: could not delete " + p + ": " + e);
      }
    }
  }

  /** Generates the graph and writes the store and one epoch of shuffled seeds as shards. */
  private static void write(
      Settings s,
      PqCodebooks pq,
      Path storeDir,
      Path shardDir,
      Map<String, Object> out,
      PrintStream log) {
    long t0 = System.nanoTime();
    boolean f32 = s.encoding().equals("f32");
    phase(
        log,
        String.format(
            java.util.Locale.ROOT,
            "generating %,d vertices, about %,d edges, %d features",
            s.vertices(),
            s.edges(),
            s.features()));
    BenchGraph bg = BenchGraph.generate(s.vertices(), s.edges(), s.features(), f32, s.skew());
    int n = s.vertices();
    int[] seeds = shuffledSeeds(n, Math.min(n, s.batches() * s.batchSize()));
    out.put("generate_seconds", (System.nanoTime() - t0) / 1e9);
    if (pq != null) {
      long tq = System.nanoTime();
      phase(log, "training the pq codebooks (" + pq.options() + ")");
      FeatureParams params = pq.train(n, bg.dim(), generatedRows(bg.dim()));
      out.put("codebook_seconds", (System.nanoTime() - tq) / 1e9);
      long t1 = System.nanoTime();
      phase(log, "encoding and writing the store's rows (pq) to " + storeDir);
      writeEncodedStore(storeDir, bg, params);
      out.put("store_seconds", (System.nanoTime() - t1) / 1e9);
    } else {
      long t1 = System.nanoTime();
      phase(log, "writing the store (" + s.encoding() + ") to " + storeDir);
      if (f32) {
        VerificationBenchmark.writeStore(
            storeDir, bg.csr(), bg.features(), bg.dim(), bg.vertices(), bg.classes());
      } else {
        writeEncodedStore(storeDir, bg, bg.encodedParams(StoreLayout.encodingCode(s.encoding())));
      }
      out.put("store_seconds", (System.nanoTime() - t1) / 1e9);
    }
    long t2 = System.nanoTime();
    phase(log, "writing the shards (" + seeds.length + " seeds) to " + shardDir);
    VerificationBenchmark.writeShards(
        shardDir, bg.csr(), bg.vertices(), seeds, s.batchSize(), s.batchesPerShard(), s.fanouts());
    out.put("shards_seconds", (System.nanoTime() - t2) / 1e9);
  }

  /** The generated rows of {@code dim} columns, computed on demand: what the f32 store holds. */
  public static InMemoryGraphStores.RowSource generatedRows(int dim) {
    return (v, row) -> {
      for (int c = 0; c < dim; c++) {
        row[c] = BenchGraph.feature(v, c, dim);
      }
    };
  }

  /** The runs {@code s} names, one epoch each, reported into {@code out}. */
  private static void runs(
      Settings s,
      GraphStore store,
      ShardSet shards,
      long featureBytes,
      Path dir,
      Map<String, Object> out,
      PrintStream log) {
    int n = s.vertices();
    long rowBytes = store.featureParams().rowBytes();
    ModelConfig cfg =
        BenchGraph.sageConfig(
            s.features(), store.manifest().classes, s.hidden(), s.fanouts().length, 0.5f);
    if (s.warmup()) {
      // A warm-up epoch (JIT, page cache), not reported.
      epoch(store, shards, cfg, s, null, 0, dir, new LinkedHashMap<>(), "warmup", log);
    }
    if (s.runs().contains("mapped")) {
      epoch(store, shards, cfg, s, null, 0, dir, out, "mapped", log);
    }
    if (s.runs().contains("none")) {
      epoch(store, shards, cfg, s, CachePolicy.NONE, 0, dir, out, "none", log);
    }
    boolean belady = s.runs().contains("belady");
    boolean lru = s.runs().contains("lru");
    if (!belady && !lru) {
      return;
    }
    out.put(
        "hot_5pct_neighbor_share",
        Math.round(NeighborSkew.hotShare(store.csr(), 0.05) * 1e4) / 1e4);
    Accesses acc = accesses(shards);
    int[] access = acc.rows();
    out.put("epoch_row_accesses", access.length);
    out.put("epoch_batches", acc.batches());
    for (double f : s.fractions()) {
      long bytes = Math.round(f * featureBytes);
      String pct = pct(f);
      out.put("cache_" + pct + "_bytes", bytes);
      int capacity =
          (int) RowCacheSizing.capacityRows(CachePolicy.BELADY, bytes, (int) rowBytes, n);
      long optimum = OfflineMin.misses(access, access.length, n, capacity);
      out.put("offline_min_" + pct + "_rows_read", optimum);
      long bound = CapacityBound.rowsRead(access, acc.counts(), acc.batches(), n, capacity);
      out.put("capacity_bound_" + pct + "_rows_read", bound);
      for (CachePolicy p : List.of(CachePolicy.BELADY, CachePolicy.LRU)) {
        if (s.runs().contains(p.id())) {
          epoch(store, shards, cfg, s, p, bytes, dir, out, p.id() + "_" + pct, log);
        }
      }
      Object b = out.get("belady_" + pct + "_rows_read");
      Object l = out.get("lru_" + pct + "_rows_read");
      if (b != null && l != null) {
        out.put(
            "lru_over_belady_rows_read_" + pct,
            ((Number) l).doubleValue() / Math.max(1, ((Number) b).doubleValue()));
      }
      if (b != null) {
        out.put(
            "belady_over_offline_min_rows_read_" + pct,
            ((Number) b).doubleValue() / Math.max(1, optimum));
      }
      if (l != null) {
        out.put(
            "lru_over_offline_min_rows_read_" + pct,
            ((Number) l).doubleValue() / Math.max(1, optimum));
        out.put(
            "lru_over_capacity_bound_rows_read_" + pct,
            ((Number) l).doubleValue() / Math.max(1, bound));
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
      String key,
      PrintStream log) {
    phase(log, "training one epoch: " + key);
    RowCache cache =
        policy == null
            ? null
            : new RowCache(
                FeatureFiles.open(store, TrainFeatureCache.IO_THREADS, s.directIo()),
                policy,
                bytes,
                io.fanout.tensor.PageMemory.HEAP,
                s.window());
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
        out.put(key + "_bytes_transferred", cache.files().bytesTransferred());
        out.put(key + "_read_calls", cache.files().reads());
        out.put(key + "_hits", cache.hits());
        out.put(key + "_misses", cache.misses());
        if (policy == CachePolicy.BELADY) {
          out.put(key + "_window_batches_max", cache.longestPlanBatches());
          out.put(key + "_window_accesses_max", cache.longestPlanAccesses());
        }
      }
      out.put(key + "_epoch_seconds", st.seconds());
      out.put(key + "_data_wait_fraction", st.waitFraction());
    } finally {
      if (cache != null) {
        cache.close();
      }
    }
  }

  /** A cache size's key: {@code 5pct}, or {@code 0.5pct} below one percent. */
  static String pct(double f) {
    return new java.math.BigDecimal(f * 100)
            .setScale(6, java.math.RoundingMode.HALF_UP)
            .stripTrailingZeros()
            .toPlainString()
        + "pct";
  }

  /**
   * Writes {@code bg}'s graph as a store whose rows are encoded with {@code params} ({@code int8}
   * and {@code int4} from {@link BenchGraph#encodedParams}, {@code pq} from its codebooks): each
   * row is computed, encoded and written in turn, so no float32 copy is held.
   */
  static void writeEncodedStore(Path storeDir, BenchGraph bg, FeatureParams params) {
    int n = bg.csr().numVertices();
    int partitions =
        Math.max(
            1,
            (n + VerificationBenchmark.VERTICES_PER_PARTITION - 1)
                / VerificationBenchmark.VERTICES_PER_PARTITION);
    InMemoryGraphStores.writeEncoded(
        storeDir,
        bg.csr(),
        bg.vertices(),
        generatedRows(bg.dim()),
        params,
        partitions,
        bg.classes(),
        "bench-features");
  }

  /** The process's peak resident set ({@code VmHWM} of /proc/self/status), or -1 where unknown. */
  static long peakRss() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          String[] f = line.substring(6).trim().split("\\s+");
          return Long.parseLong(f[0]) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /**
   * The epoch's row accesses in the order a cache sees them: every batch's node ids ({@code
   * counts[b]} of batch {@code b}), batches in shard order (the order {@link PipelinedLoader}
   * gathers them).
   */
  private record Accesses(int[] rows, int[] counts, int batches) {}

  private static Accesses accesses(ShardSet shards) {
    int[] seq = new int[1024];
    int[] counts = new int[64];
    int len = 0;
    int batches = 0;
    for (Path f : shards.files(0)) {
      try (ShardFileReader r = new ShardFileReader(f)) {
        while (r.hasNext()) {
          int[] nodes = BatchCodec.decode(r.next()).nodes();
          if (len + nodes.length > seq.length) {
            seq = java.util.Arrays.copyOf(seq, Math.max(len + nodes.length, seq.length * 2));
          }
          if (batches == counts.length) {
            counts = java.util.Arrays.copyOf(counts, batches * 2);
          }
          System.arraycopy(nodes, 0, seq, len, nodes.length);
          len += nodes.length;
          counts[batches++] = nodes.length;
        }
      }
    }
    return new Accesses(java.util.Arrays.copyOf(seq, len), counts, batches);
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
