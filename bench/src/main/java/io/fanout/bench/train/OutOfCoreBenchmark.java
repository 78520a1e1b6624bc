package io.fanout.bench.train;

import io.fanout.bench.sample.VertexTables;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.options.BenchOutOfCoreOptions;
import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureFiles;
import io.fanout.features.ReadCoalescing;
import io.fanout.features.RowCache;
import io.fanout.features.RowLayout;
import io.fanout.graph.NeighborhoodOrder;
import io.fanout.graph.SeedGroupOrder;
import io.fanout.graph.VertexTable;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.train.PlanWindow;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Out-of-core reads against the disk's own rates, in one run: one epoch's batches of a {@link
 * BenchGraph} are sampled (node ids only); its f32 rows are written to a feature file per {@link
 * RowLayout} (at their ids; in the order the served batches first touch them, the best case; or in
 * the order another epoch's batches do, as a layout recorded before a run would be); the disk's
 * sequential rate and its random-read rate at 4 KiB are measured on that file with {@code
 * O_DIRECT}; then a {@code belady} {@link RowCache} over each layout and each {@link
 * ReadCoalescing} serves the batches (plan a window, gather half of it, as the loader does) with
 * {@code O_DIRECT} reads, and the disk's random-read rate is measured again at the mean size of
 * that run's reads. The cache's useful bytes (the rows it read, {@code misses x rowBytes}) per
 * second are reported as a share of the random-read rate at its own request size. Every run's rows
 * are checksummed: they must be the same whatever the layout and the merging.
 */
public final class OutOfCoreBenchmark {
  private OutOfCoreBenchmark() {}

  /** The row layouts it can write. */
  public static final List<String> LAYOUTS =
      List.of("identity", "neighborhood", "seed-groups", "first-use", "first-use-prior");

  /** The ways it can issue reads. */
  public static final List<String> COALESCING = List.of("row", "merged", "near");

  public record Settings(
      int vertices,
      long edges,
      int features,
      double locality,
      int communitySize,
      int[] fanouts,
      int batchSize,
      int batches,
      int loaderThreads,
      double fraction,
      int ioThreads,
      List<String> layouts,
      List<String> coalescing,
      double probeSeconds,
      String workDir) {
    public Settings {
      if (!(fraction > 0 && fraction <= 1)) {
        throw new InvalidInputException(
            "--cache-fraction must be in (0, 1] (a fraction of the feature bytes), got "
                + fraction);
      }
      check("--layouts", layouts, LAYOUTS);
      if (!(locality >= 0 && locality <= 1) || communitySize < 1) {
        throw new InvalidInputException(
            "--locality must be in [0, 1] and --community-size positive, got "
                + locality
                + " and "
                + communitySize);
      }
      check("--coalescing", coalescing, COALESCING);
      if (ioThreads < 1 || batches < 1 || !(probeSeconds > 0)) {
        throw new InvalidInputException(
            "--io-threads, --batches and --probe-seconds must be positive, got "
                + ioThreads
                + ", "
                + batches
                + ", "
                + probeSeconds);
      }
    }
  }

  /** The settings {@code c} gives ({@link BenchOutOfCoreOptions#ALL}). */
  public static Settings settings(FanoutConf c) {
    return new Settings(
        Math.toIntExact(c.get(BenchOutOfCoreOptions.NUM_VERTICES)),
        c.get(BenchOutOfCoreOptions.NUM_EDGES),
        c.get(BenchOutOfCoreOptions.FEATURE_DIM),
        c.get(BenchOutOfCoreOptions.LOCALITY),
        c.get(BenchOutOfCoreOptions.COMMUNITY_SIZE),
        SharedOptions.fanouts(c.get(BenchOutOfCoreOptions.FANOUTS)),
        c.get(BenchOutOfCoreOptions.BATCH_SIZE),
        c.get(BenchOutOfCoreOptions.BATCHES),
        c.get(BenchOutOfCoreOptions.LOADER_THREADS),
        c.get(BenchOutOfCoreOptions.CACHE_FRACTION),
        c.get(BenchOutOfCoreOptions.IO_THREADS),
        List.of(c.get(BenchOutOfCoreOptions.LAYOUTS).split(",")),
        List.of(c.get(BenchOutOfCoreOptions.COALESCING).split(",")),
        c.get(BenchOutOfCoreOptions.PROBE_SECONDS),
        c.get(BenchOutOfCoreOptions.WORK_DIR));
  }

  private static void check(String option, List<String> given, List<String> known) {
    if (given.isEmpty()) {
      throw new InvalidInputException(option + " names none; expected some of " + known);
    }
    for (String g : given) {
      if (!known.contains(g)) {
        throw new InvalidInputException(
            option + ": unknown '" + g + "'; expected some of " + String.join(",", known));
      }
    }
  }

  public static Map<String, Object> run(Settings s, PrintStream log) {
    long t0 = System.nanoTime();
    int n = s.vertices();
    int dim = s.features();
    BenchGraph bg =
        BenchGraph.generate(
            n, s.edges(), dim, false, BenchGraph.DEFAULT_SKEW, s.locality(), s.communitySize());
    List<int[]> batches =
        CacheReplayBenchmark.sample(
            bg, s.batches(), s.batchSize(), s.fanouts(), s.loaderThreads(), 0);
    RowLayout prior =
        s.layouts().contains("first-use-prior")
            ? RowLayout.firstUse(
                n,
                CacheReplayBenchmark.sample(
                    bg, s.batches(), s.batchSize(), s.fanouts(), s.loaderThreads(), 1))
            : null;
    // The layouts a store records (quantize/prepare --feature-layout), one partition here, over
    // the graph and the training split the epochs draw their seeds from; no epoch is used.
    VertexTable split = trainingSplit(n, bg.spreadSeeds(s.batches() * s.batchSize()));
    long l0 = System.nanoTime();
    RowLayout neighborhood =
        s.layouts().contains("neighborhood")
            ? RowLayout.of(NeighborhoodOrder.positions(bg.csr(), split, new long[] {0, n}, 1))
            : null;
    double neighborhoodSeconds = (System.nanoTime() - l0) / 1e9;
    long g0 = System.nanoTime();
    RowLayout seedGroups =
        s.layouts().contains("seed-groups")
            ? RowLayout.of(SeedGroupOrder.positions(bg.csr(), split, new long[] {0, n}, 1))
            : null;
    double seedGroupsSeconds = (System.nanoTime() - g0) / 1e9;
    bg = null; // the rows come from BenchGraph.feature; the graph is no longer needed
    long accesses = 0;
    int maxRows = 0;
    for (int[] b : batches) {
      accesses += b.length;
      maxRows = Math.max(maxRows, b.length);
    }
    FeatureParams params = FeatureParams.plain(StoreLayout.ENCODING_F32, dim);
    int rowBytes = params.rowBytes();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("vertices", n);
    out.put("features", dim);
    out.put("locality", s.locality());
    out.put("community_size", s.communitySize());
    out.put("training_vertices", s.batches() * s.batchSize());
    out.put("neighborhood_layout_seconds", neighborhoodSeconds);
    out.put("seed_groups_layout_seconds", seedGroupsSeconds);
    out.put("row_bytes", rowBytes);
    out.put("feature_file_bytes", (long) n * rowBytes);
    out.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
    out.put("feature_file_over_max_heap", (double) n * rowBytes / Runtime.getRuntime().maxMemory());
    out.put("batches", batches.size());
    out.put("row_accesses", accesses);
    out.put("cache_fraction", s.fraction());
    out.put("io_threads", s.ioThreads());
    out.put("generate_and_sample_seconds", (System.nanoTime() - t0) / 1e9);
    Path dir = workDir(s.workDir());
    try {
      Map<String, Path> files = new LinkedHashMap<>();
      Map<String, RowLayout> layouts = new HashMap<>();
      for (String name : s.layouts()) {
        long w0 = System.nanoTime();
        RowLayout layout =
            switch (name) {
              case "identity" -> RowLayout.IDENTITY;
              case "first-use" -> RowLayout.firstUse(n, batches);
              case "neighborhood" -> neighborhood;
              case "seed-groups" -> seedGroups;
              default -> prior;
            };
        Path file = dir.resolve("features-" + name + ".feat");
        log.println("writing " + file);
        LayoutFeatureFile.write(file, n, dim, layout);
        layouts.put(name, layout);
        files.put(name, file);
        out.put(name + "_write_seconds", (System.nanoTime() - w0) / 1e9);
      }
      DiskReadProbe disk = new DiskReadProbe(files.values().iterator().next(), s.ioThreads());
      out.put("block_bytes", disk.block());
      log.println("measuring the disk: sequential, then random 4 KiB");
      DiskReadProbe.Rate seq = disk.sequential(1 << 20);
      out.put("disk_sequential_1m_bytes_per_second", seq.bytesPerSecond());
      Map<Integer, DiskReadProbe.Rate> random = new HashMap<>();
      probe(disk, 4096, s.probeSeconds(), random, out);
      long bytes = (long) (s.fraction() * n * (double) rowBytes);
      float[] buf = new float[maxRows * dim];
      Long checksum = null;
      boolean same = true;
      for (String name : s.layouts()) {
        for (String c : s.coalescing()) {
          String key = name + "_" + c;
          log.println("serving the batches: layout " + name + ", reads " + c);
          ReadCoalescing rc =
              switch (c) {
                case "row" -> ReadCoalescing.ROW_AT_A_TIME;
                case "near" -> ReadCoalescing.DIRECT_NEAR;
                default -> ReadCoalescing.DIRECT;
              };
          FeatureFiles f =
              FeatureFiles.of(
                  new Path[] {files.get(name)},
                  new long[] {0, n},
                  params,
                  s.ioThreads(),
                  true,
                  rc,
                  layouts.get(name));
          try (RowCache cache = new RowCache(f, CachePolicy.BELADY, Math.max(rowBytes, bytes))) {
            long[] r = replay(cache, batches, buf, dim);
            double seconds = r[0] / 1e9;
            same &= checksum == null || checksum == r[1];
            checksum = checksum == null ? r[1] : checksum;
            long useful = f.bytesRead();
            long calls = Math.max(1, f.reads());
            long request = f.bytesTransferred() / calls;
            DiskReadProbe.Rate at = probe(disk, request, s.probeSeconds(), random, out);
            double usefulRate = useful / seconds;
            out.put(key + "_seconds", seconds);
            out.put(key + "_read_seconds", f.readNanos() / 1e9);
            out.put(key + "_hits", cache.hits());
            out.put(key + "_misses", cache.misses());
            out.put(key + "_useful_bytes", useful);
            out.put(key + "_bytes_transferred", f.bytesTransferred());
            out.put(key + "_read_calls", f.reads());
            out.put(key + "_useful_rows_per_call", f.rowsRead() / (double) calls);
            out.put(key + "_mean_request_bytes", request);
            out.put(key + "_probe_request_bytes", disk.nearestBlocks(request));
            out.put(key + "_useful_bytes_per_second", usefulRate);
            out.put(key + "_transferred_bytes_per_second", f.bytesTransferred() / seconds);
            out.put(key + "_useful_over_random_same_size", usefulRate / at.bytesPerSecond());
            out.put(key + "_useful_over_random_4k", usefulRate / random.get(4096).bytesPerSecond());
            out.put(key + "_useful_over_sequential", usefulRate / seq.bytesPerSecond());
          }
        }
      }
      out.put("rows_identical_across_runs", same);
    } finally {
      delete(dir, s.workDir().isEmpty());
    }
    out.put("peak_rss_bytes", peakRss());
    out.put("total_seconds", (System.nanoTime() - t0) / 1e9);
    return out;
  }

  /** The split marking {@code seeds} as training vertices and every other vertex as none. */
  static VertexTable trainingSplit(int n, int[] seeds) {
    boolean[] train = new boolean[n];
    for (int v : seeds) {
      train[v] = true;
    }
    return VertexTables.of(
        n, v -> -1, v -> train[v] ? StoreLayout.SPLIT_TRAIN : StoreLayout.SPLIT_NONE);
  }

  /**
   * The random-read rate at {@code request} bytes (to the nearest whole blocks), measured once per
   * size.
   */
  private static DiskReadProbe.Rate probe(
      DiskReadProbe disk,
      long request,
      double seconds,
      Map<Integer, DiskReadProbe.Rate> done,
      Map<String, Object> out) {
    int size = disk.nearestBlocks(request);
    DiskReadProbe.Rate r = done.get(size);
    if (r == null) {
      r = disk.random(size, seconds, size);
      done.put(size, r);
      out.put("disk_random_" + size + "_bytes_per_second", r.bytesPerSecond());
      out.put("disk_random_" + size + "_reads_per_second", r.readsPerSecond());
    }
    return r;
  }

  /**
   * Serves every batch through {@code cache} as the loader does (plan a window, gather half of it);
   * returns the nanoseconds spent planning and gathering, and a checksum of the rows gathered
   * (computed outside the timed part).
   */
  private static long[] replay(RowCache cache, List<int[]> batches, float[] buf, int dim) {
    PlanWindow window = PlanWindow.of(cache);
    int[][] ids = new int[batches.size()][];
    int[] counts = new int[batches.size()];
    long nanos = 0;
    long sum = 0;
    for (int head = 0; head < batches.size(); ) {
      int size = 0;
      long rows = 0;
      while (head + size < batches.size() && window.wantsMore(size, rows)) {
        ids[size] = batches.get(head + size);
        counts[size] = ids[size].length;
        rows += counts[size++];
      }
      int step = PlanWindow.servedPerPlan(head + size < batches.size(), size);
      long t0 = System.nanoTime();
      cache.plan(ids, counts, size, step);
      nanos += System.nanoTime() - t0;
      for (int i = 0; i < step; i++) {
        long t1 = System.nanoTime();
        cache.gather(ids[i], 0, counts[i], buf, 0);
        nanos += System.nanoTime() - t1;
        for (int k = 0; k < counts[i] * dim; k++) {
          sum = sum * 31 + Float.floatToRawIntBits(buf[k]);
        }
      }
      head += step;
    }
    return new long[] {nanos, sum};
  }

  private static Path workDir(String given) {
    try {
      return given.isEmpty()
          ? Files.createTempDirectory("fanout-bench-out-of-core")
          : Files.createDirectories(Path.of(given));
    } catch (IOException e) {
      throw new UncheckedIOException("creating the work folder failed: " + e.getMessage(), e);
    }
  }

  /** Deletes the feature files it wrote, and the folder when it made it. */
  private static void delete(Path dir, boolean ownFolder) {
    try {
      for (String name : LAYOUTS) {
        Files.deleteIfExists(dir.resolve("features-" + name + ".feat"));
      }
      if (ownFolder) {
        Files.deleteIfExists(dir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("removing the feature files failed: " + e.getMessage(), e);
    }
  }

  /** The process's peak resident set ({@code VmHWM}), or -1 where /proc does not say. */
  static long peakRss() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }
}
