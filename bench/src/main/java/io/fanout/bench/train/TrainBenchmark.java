package io.fanout.bench.train;

import io.fanout.graph.ArrayCsrGraph;
import io.fanout.graph.VertexTable;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.tensor.Backend;
import io.fanout.tensor.Backends;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.KernelFeatureRows;
import io.fanout.tensor.cuda.OverlapStats;
import io.fanout.train.BatchStream;
import io.fanout.train.FeatureAccessChoice;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.GradientReducer;
import io.fanout.train.SampledEpochs;
import io.fanout.train.TrainBatch;
import io.fanout.train.TrainFeatureCache;
import io.fanout.train.TrainOptions;
import io.fanout.train.Trainer;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Training throughput on a generated graph: random in-neighbors (a skewed choice of sources so that
 * degrees vary), random features and labels, sampled on the fly by the loader threads. Reports the
 * time per batch, the GFLOP/s of the dense layers next to the same backend's square {@code sgemm}
 * ({@code Settings.sgemmSize}, 2048 unless set) measured in the same run, the data-wait fraction
 * and the peak heap; with {@code verifyRounds > 0} also what verifying the store and the shards
 * costs an epoch ({@link VerificationBenchmark}).
 */
public final class TrainBenchmark {
  /**
   * Timed batches whose node ids the CUDA run keeps to compare feature access (gather, zero-copy).
   */
  private static final int FEATURE_ACCESS_BATCHES = 8;

  /** The reference {@code sgemm}'s m = n = k unless set: {@code --sgemm-size}'s default. */
  public static final int SGEMM_SIZE =
      Integer.parseInt(io.fanout.conf.options.BenchTrainOptions.SGEMM_SIZE.defaultValue());

  private TrainBenchmark() {}

  /**
   * Settings of one benchmark run.
   *
   * @param batchesPerShard batches per shard part in the verification measurement
   * @param verifyRounds pairs of epochs (unverified, verified) of the verification measurement; 0
   *     skips it
   * @param featureAccess {@code gather} (the loader threads gather each batch's rows into a heap
   *     array, which the step uploads) or {@code zero-copy} (CUDA only: the loader only samples,
   *     the step uploads the node ids and a kernel reads the rows from pinned host memory)
   * @param featureCacheFraction with zero-copy: 0 keeps every row in pinned host memory; above 0
   *     the rows are written to a feature file and read through a {@code belady} {@link RowCache}
   *     of that fraction of the feature bytes, whose pinned pages the kernel reads ({@link
   *     PagedFeatureRows}; the file is read through the page cache)
   * @param featureCacheIoThreads the cache's I/O threads (4, as {@code train} uses)
   * @param sgemmSize m = n = k of the square reference {@code sgemm} the dense layers' GFLOP/s are
   *     set against ({@link #SGEMM_SIZE} unless set)
   */
  public record Settings(
      int vertices,
      long edges,
      int features,
      int hidden,
      int[] fanouts,
      int batchSize,
      int batches,
      int warmup,
      int loaderThreads,
      int prefetch,
      int batchesPerShard,
      int verifyRounds,
      FeatureAccessMode featureAccess,
      double featureCacheFraction,
      int featureCacheIoThreads,
      int sgemmSize) {
    public Settings {
      java.util.Objects.requireNonNull(featureAccess, "featureAccess");
      if (sgemmSize < 1) {
        throw new io.fanout.store.InvalidInputException(
            "--sgemm-size must be at least 1, got " + sgemmSize);
      }
      if (!(featureCacheFraction >= 0 && featureCacheFraction <= 1)) {
        throw new io.fanout.store.InvalidInputException(
            "--feature-cache-fraction must be in [0, 1], got " + featureCacheFraction);
      }
      if (featureCacheIoThreads < 1) {
        throw new io.fanout.store.InvalidInputException(
            "--feature-cache-io-threads must be at least 1, got " + featureCacheIoThreads);
      }
      if (featureCacheFraction > 0 && featureAccess != FeatureAccessMode.ZERO_COPY) {
        throw new io.fanout.store.InvalidInputException(
            "--feature-cache-fraction measures the cache read in place; it needs --feature-access"
                + " zero-copy");
      }
    }

    /** With the reference {@code sgemm} at {@link #SGEMM_SIZE}. */
    public Settings(
        int vertices,
        long edges,
        int features,
        int hidden,
        int[] fanouts,
        int batchSize,
        int batches,
        int warmup,
        int loaderThreads,
        int prefetch,
        int batchesPerShard,
        int verifyRounds,
        FeatureAccessMode featureAccess,
        double featureCacheFraction,
        int featureCacheIoThreads) {
      this(
          vertices,
          edges,
          features,
          hidden,
          fanouts,
          batchSize,
          batches,
          warmup,
          loaderThreads,
          prefetch,
          batchesPerShard,
          verifyRounds,
          featureAccess,
          featureCacheFraction,
          featureCacheIoThreads,
          SGEMM_SIZE);
    }

    /** Without a feature cache, with the reference {@code sgemm} at {@link #SGEMM_SIZE}. */
    public Settings(
        int vertices,
        long edges,
        int features,
        int hidden,
        int[] fanouts,
        int batchSize,
        int batches,
        int warmup,
        int loaderThreads,
        int prefetch,
        int batchesPerShard,
        int verifyRounds,
        FeatureAccessMode featureAccess) {
      this(
          vertices,
          edges,
          features,
          hidden,
          fanouts,
          batchSize,
          batches,
          warmup,
          loaderThreads,
          prefetch,
          batchesPerShard,
          verifyRounds,
          featureAccess,
          0,
          TrainFeatureCache.IO_THREADS,
          SGEMM_SIZE);
    }

    /** Whether the backend reads the rows itself (zero-copy or device; false while auto). */
    boolean zeroCopy() {
      return featureAccess.readsInPlace();
    }

    /**
     * These settings with {@code auto} resolved for {@code be} as {@code train} resolves it ({@link
     * FeatureAccessChoice}), for the generated f32 table.
     *
     * @throws io.fanout.store.InvalidInputException when the rows would be read in place from
     *     memory by a backend other than CUDA (only a feature cache's pages are read in place on
     *     the CPU backends)
     */
    Settings resolvedFor(Backend be) {
      FeatureAccessMode m =
          FeatureAccessChoice.resolve(
                  featureAccess, be, 4L * features * vertices, null, featureCacheFraction > 0)
              .mode();
      if (m.readsInPlace() && featureCacheFraction == 0 && !(be instanceof CudaBackend)) {
        throw new io.fanout.store.InvalidInputException(
            "--feature-access "
                + m.id()
                + " is measured on the CUDA backend only (got "
                + be.name()
                + "); use --backend cuda, --feature-access gather, or a --feature-cache-fraction");
      }
      return with(batches, warmup, verifyRounds, m, featureCacheFraction);
    }

    /** These settings with the steps, verification rounds, feature access and cache given. */
    Settings with(
        int batches,
        int warmup,
        int verifyRounds,
        FeatureAccessMode featureAccess,
        double featureCacheFraction) {
      return copy(batches, warmup, verifyRounds, featureAccess, featureCacheFraction, sgemmSize);
    }

    /** These settings with the reference {@code sgemm} at {@code n x n x n}. */
    public Settings withSgemmSize(int n) {
      return copy(batches, warmup, verifyRounds, featureAccess, featureCacheFraction, n);
    }

    private Settings copy(
        int batches,
        int warmup,
        int verifyRounds,
        FeatureAccessMode featureAccess,
        double featureCacheFraction,
        int sgemmSize) {
      return new Settings(
          vertices,
          edges,
          features,
          hidden,
          fanouts,
          batchSize,
          batches,
          warmup,
          loaderThreads,
          prefetch,
          batchesPerShard,
          verifyRounds,
          featureAccess,
          featureCacheFraction,
          featureCacheIoThreads,
          sgemmSize);
    }
  }

  /**
   * The generated table as the CUDA backend reads it in place: copied into device memory ({@code
   * device}) or into mapped pinned host memory ({@code zero-copy}); null when rows are gathered.
   */
  static KernelFeatureRows inPlaceRows(Settings s, Backend be, float[] table) {
    if (!s.zeroCopy()) {
      return null;
    }
    CudaBackend cuda = (CudaBackend) be; // resolvedFor refused the others
    return s.featureAccess() == FeatureAccessMode.DEVICE
        ? KernelFeatureRows.residentCopy(cuda, table, s.vertices(), s.features())
        : KernelFeatureRows.pinnedCopy(cuda, table, s.vertices(), s.features());
  }

  public static Map<String, Object> run(Settings s) {
    return run(s, Backends.select());
  }

  /** Runs the benchmark on {@code be} (e.g. {@code Backends.select("cuda", -1)}). */
  public static Map<String, Object> run(Settings asked, Backend be) {
    Settings s = asked.resolvedFor(be);
    long t0 = System.nanoTime();
    int n = s.vertices();
    boolean onDisk = !BenchGraph.rowsFitOneArray(n, s.features());
    if (onDisk) {
      DeviceRowsFromFile.check(s, be);
    }
    BenchGraph bg = BenchGraph.generate(n, s.edges(), s.features(), !onDisk);
    ArrayCsrGraph g = bg.csr();
    float[] feats = bg.features();
    int classes = bg.classes();
    VertexTable vt = bg.vertices();
    double genSeconds = (System.nanoTime() - t0) / 1e9;
    int total = s.batches() + s.warmup();
    int[] seeds = bg.spreadSeeds(total * s.batchSize());
    ModelConfig cfg = bg.sageConfig(s.hidden(), s.fanouts().length, 0.5f);
    GnnModel model = new GnnModel(cfg, be);
    Trainer trainer =
        new Trainer(
            model, new TrainOptions(1, 0.003f, 0f, LrSchedule.CONSTANT, 1), GradientReducer.LOCAL);
    model.init(1);
    SampledEpochs data = sampledEpochs(bg, seeds, s);
    KernelFeatureRows pinnedRows = null;
    CachedRows cached = null;
    Map<String, Object> routeReport = new LinkedHashMap<>();
    if (s.featureCacheFraction() > 0) {
      cached =
          CachedRows.open(
              be, feats, n, s.features(), s.featureCacheFraction(), s.featureCacheIoThreads());
      trainer.readFeaturesFrom(cached.pages());
      data.gather(false).cache(cached.cache());
    } else if (onDisk) {
      pinnedRows = DeviceRowsFromFile.upload((CudaBackend) be, n, s.features(), routeReport);
      trainer.readFeaturesFrom(pinnedRows);
      data.gather(false);
    } else if (s.zeroCopy()) {
      pinnedRows = inPlaceRows(s, be, feats);
      trainer.readFeaturesFrom(pinnedRows);
      data.gather(false);
    }
    long flops0 = 0;
    long dense0 = 0;
    long wait0 = 0;
    long start = 0;
    long nodes = 0;
    long edges = 0;
    int done = 0;
    List<int[]> featureBatches = new ArrayList<>();
    Trainer.QueuedStep previous = null;
    try (CachedRows closeCache = cached;
        KernelFeatureRows closeRows = pinnedRows;
        BatchStream stream = data.open(0)) {
      TrainBatch b;
      while ((b = stream.next()) != null) {
        if (done == s.warmup()) {
          flops0 = model.denseFlops();
          dense0 = model.denseNanos();
          wait0 = stream.waitNanos();
          if (be instanceof CudaBackend cuda) {
            cuda.resetTransferStats();
          }
          start = System.nanoTime();
        }
        if (done >= s.warmup()) {
          if (be instanceof CudaBackend && featureBatches.size() < FEATURE_ACCESS_BATCHES) {
            featureBatches.add(b.batch().nodes().clone());
          }
          nodes += b.batch().nodes().length;
          edges += b.batch().numEdges();
        }
        Trainer.QueuedStep queued = trainer.queueStep(b, 0, 0.003f);
        stream.recycle(b);
        if (previous != null) {
          previous.stats(); // read back after the next step is queued, as in training
        }
        previous = queued;
        done++;
      }
      if (previous != null) {
        previous.stats();
      }
      be.sync();
      long elapsed = System.nanoTime() - start;
      long flops = model.denseFlops() - flops0;
      long denseNanos = model.denseNanos() - dense0;
      long wait = stream.waitNanos() - wait0;
      int timed = done - s.warmup();
      int sq = s.sgemmSize();
      double sgemm = sgemmGflops(be, sq, sq, sq);
      String sgemmKey = "sgemm_" + sq + "_gflops";
      // The shape of layer 0's forward product (hop-2 rows x [x | mean] x hidden), for reference.
      int layerRows = (int) Math.min(200_000, Math.max(1024, nodes / Math.max(1, timed) / 4));
      double sgemmLayer = sgemmGflops(be, layerRows, s.hidden(), 2 * s.features());
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("backend", be.name());
      out.put("blas", CpuBackend.blasName());
      out.put("vertices", n);
      out.put("edges", g.numEdges());
      out.put("features", s.features());
      out.put("hidden", s.hidden());
      out.put("fanouts", Arrays.toString(s.fanouts()));
      out.put("batch_size", s.batchSize());
      out.put("feature_access", s.featureAccess().id());
      out.put("timed_batches", timed);
      out.put("generate_seconds", genSeconds);
      out.put("seconds_per_batch", elapsed / 1e9 / Math.max(1, timed));
      out.put("seeds_per_second", timed * (double) s.batchSize() / (elapsed / 1e9));
      out.put("mean_nodes_per_batch", nodes / Math.max(1, timed));
      out.put("mean_edges_per_batch", edges / Math.max(1, timed));
      if (be instanceof CudaBackend) {
        // Its products are queued, not run, when the host's clock stops: no dense time to report.
        out.put("dense_gflop_per_batch", flops / 1e9 / Math.max(1, timed));
        out.put(sgemmKey, sgemm);
      } else {
        double dense = flops / (denseNanos / 1e9) / 1e9;
        out.put("dense_gflops", dense);
        out.put("dense_time_fraction", denseNanos / (double) elapsed);
        out.put(sgemmKey, sgemm);
        out.put("dense_to_sgemm_ratio", dense / sgemm);
      }
      out.put("sgemm_layer_shape", layerRows + "x" + s.hidden() + "x" + 2 * s.features());
      out.put("sgemm_layer_shape_gflops", sgemmLayer);
      out.put("data_wait_fraction", wait / (double) elapsed);
      if (be instanceof CudaBackend cuda) {
        OverlapStats t = cuda.transferStats();
        out.put("upload_ms_per_batch", t.copyMs() / Math.max(1, timed));
        out.put("upload_hidden_fraction", t.hiddenShare());
        out.put("upload_wait_fraction", t.dataWaitShare());
        // -Dfanout.cuda.kernel-times=true: device milliseconds per batch of each kernel
        cuda.kernelTimes().forEach((k, v) -> out.put("kernel_ms." + k, v[0] / Math.max(1, timed)));
        if (cached == null && !onDisk) {
          out.putAll(
              FeatureAccessBenchmark.run(cuda, bg, featureBatches, pinnedRows, s.zeroCopy()));
        }
      }
      if (cached != null) {
        out.putAll(cached.report(s.featureCacheFraction()));
        out.put("feature_cache_io_threads", s.featureCacheIoThreads());
      }
      out.putAll(routeReport);
      out.put("peak_heap_bytes", peakHeap());
      out.put("peak_rss_bytes", OutOfCoreBenchmark.peakRss());
      if (s.verifyRounds() > 0) {
        out.putAll(
            VerificationBenchmark.run(
                g, feats, s.features(), vt, classes, seeds, cfg, s, s.verifyRounds()));
      }
      return out;
    }
  }

  /**
   * One epoch of {@code seeds} of the generated graph, sampled and gathered on the fly by the
   * loader threads with the run's fanouts, batch size, loader threads and prefetch.
   */
  static SampledEpochs sampledEpochs(BenchGraph bg, int[] seeds, Settings s) {
    return sampledEpochs(bg, seeds, s.fanouts(), s.batchSize(), s.loaderThreads())
        .prefetch(s.prefetch());
  }

  /** One epoch over {@code seeds}, shuffled, sampled uniformly from {@code bg} (seed 1). */
  static SampledEpochs sampledEpochs(
      BenchGraph bg, int[] seeds, int[] fanouts, int batchSize, int loaderThreads) {
    return new SampledEpochs(
        bg.csr(),
        bg.vertices(),
        bg.featureTable(),
        seeds,
        fanouts,
        batchSize,
        1,
        true,
        FeatureNormKind.NONE,
        loaderThreads);
  }

  /** The backend's {@code sgemm} GFLOP/s at {@code m x n x k} (best of 3 after a warm-up). */
  public static double sgemmGflops(Backend be, int m, int n, int k) {
    float[] a = new float[m * k];
    float[] b = new float[k * n];
    for (int i = 0; i < a.length; i++) {
      a[i] = CounterRng.uniform(1, i);
    }
    for (int i = 0; i < b.length; i++) {
      b[i] = CounterRng.uniform(2, i);
    }
    try (FloatTensor ta = be.allocFloat(a.length);
        FloatTensor tb = be.allocFloat(b.length);
        FloatTensor tc = be.allocFloat(m * n)) {
      be.upload(a, 0, ta, 0, a.length);
      be.upload(b, 0, tb, 0, b.length);
      be.gemm(false, false, m, n, k, 1f, ta, 0, tb, 0, 0f, tc, 0);
      be.sync();
      double best = 0;
      for (int r = 0; r < 3; r++) {
        long t = System.nanoTime();
        be.gemm(false, false, m, n, k, 1f, ta, 0, tb, 0, 0f, tc, 0);
        be.sync();
        best = Math.max(best, 2.0 * m * n * k / ((System.nanoTime() - t) / 1e9) / 1e9);
      }
      return best;
    }
  }

  static long peakHeap() {
    long sum = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP && p.getPeakUsage() != null) {
        sum += p.getPeakUsage().getUsed();
      }
    }
    return sum;
  }
}
