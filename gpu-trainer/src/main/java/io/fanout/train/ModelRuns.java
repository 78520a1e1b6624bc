package io.fanout.train;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureFiles;
import io.fanout.features.PageMemory;
import io.fanout.features.RowCache;
import io.fanout.graph.GraphStore;
import io.fanout.graph.HeldOutEdges;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardManifest;
import io.fanout.store.Checksums;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.tensor.Backends;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.PagedFeatureRows;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Whole runs of a model, engine-free: train it from a graph store and its shards, evaluate it per
 * split, and compute predictions. The Spark stages of spark-ops and the trainers on executors call
 * these; nothing here needs a SparkSession.
 */
public final class ModelRuns {
  private ModelRuns() {}

  /**
   * Everything {@link #train} needs; see {@code docs/training.md} for the defaults.
   *
   * @param verify check the store's files (once per process) and every shard part (as it is read)
   *     against their manifests' CRC32C, and refuse damaged ones
   * @param featureCache null: features come from the memory-mapped store; else the policy ({@code
   *     belady}, {@code lru}, {@code none}) of a {@link RowCache} of {@code featureCacheBytes} that
   *     is then the only feature source (see {@code docs/features.md})
   * @param backend the tensor backend: {@code auto}, {@code cpu}, {@code cpu-checked} or a
   *     provider's name such as {@code cuda} (see {@link Backends#select(String, int)})
   * @param device the accelerator ordinal to run on (from Spark's task resources), or -1 for the
   *     backend's default
   * @param featureAccess {@code gather} (the loader gathers each batch's feature rows on the host,
   *     which are then uploaded) or {@code zero-copy} (only the node ids go up and the backend
   *     reads the rows from the memory-mapped store itself, decoding quantized rows; node-id-only
   *     shards, no feature cache, feature norm none)
   * @param reuse reuse of hot vertices' bottom-layer embeddings ({@link HotReuse#OFF}: none)
   * @param decoder a link model's decoder, {@code dot} or {@code mlp} (node classifiers: {@code
   *     dot})
   * @param featureCacheDirect with {@code featureCache}: read the rows with {@code O_DIRECT},
   *     bypassing the kernel's page cache (see {@link FeatureFiles})
   * @param featureCacheWindow with {@code featureCache belady}: the batches planned at a time, or
   *     {@link RowCache#AUTO_WINDOW} (see {@link PlanWindow})
   */
  public record TrainSpec(
      Path graph,
      Path shards,
      Path modelDir,
      String model,
      int hidden,
      int layers,
      float dropout,
      String activation,
      String featureNorm,
      float lr,
      float weightDecay,
      String schedule,
      int epochs,
      long seed,
      boolean resume,
      Path valShards,
      int loaderThreads,
      int prefetch,
      int logEvery,
      boolean verify,
      String featureCache,
      long featureCacheBytes,
      String backend,
      int device,
      String featureAccess,
      HotReuse reuse,
      String decoder,
      boolean featureCacheDirect,
      int featureCacheWindow) {

    /** The accepted {@code featureAccess} values. */
    public static final String GATHER = "gather";

    public static final String ZERO_COPY = "zero-copy";

    /** A spec on the automatically chosen backend ({@code auto}, default device). */
    public TrainSpec(
        Path graph,
        Path shards,
        Path modelDir,
        String model,
        int hidden,
        int layers,
        float dropout,
        String activation,
        String featureNorm,
        float lr,
        float weightDecay,
        String schedule,
        int epochs,
        long seed,
        boolean resume,
        Path valShards,
        int loaderThreads,
        int prefetch,
        int logEvery,
        boolean verify,
        String featureCache,
        long featureCacheBytes) {
      this(
          graph,
          shards,
          modelDir,
          model,
          hidden,
          layers,
          dropout,
          activation,
          featureNorm,
          lr,
          weightDecay,
          schedule,
          epochs,
          seed,
          resume,
          valShards,
          loaderThreads,
          prefetch,
          logEvery,
          verify,
          featureCache,
          featureCacheBytes,
          Backends.AUTO,
          -1,
          Defaults.FEATURE_ACCESS,
          HotReuse.OFF,
          ModelConfig.DOT,
          false,
          RowCache.DEFAULT_WINDOW_BATCHES);
    }

    /** This spec on backend {@code name} ({@code auto}, {@code cpu}, {@code cuda}, ...). */
    public TrainSpec onBackend(String name) {
      return with(
          name, device, featureAccess, reuse, decoder, featureCacheDirect, featureCacheWindow);
    }

    /** This spec on accelerator {@code ordinal} (-1: the backend's default device). */
    public TrainSpec onDevice(int ordinal) {
      return with(
          backend, ordinal, featureAccess, reuse, decoder, featureCacheDirect, featureCacheWindow);
    }

    /** This spec with {@code featureAccess} ({@link #GATHER} or {@link #ZERO_COPY}). */
    public TrainSpec withFeatureAccess(String access) {
      return with(backend, device, access, reuse, decoder, featureCacheDirect, featureCacheWindow);
    }

    /** This spec with embedding reuse {@code r} (see {@link HotReuse}). */
    public TrainSpec withReuse(HotReuse r) {
      return with(
          backend, device, featureAccess, r, decoder, featureCacheDirect, featureCacheWindow);
    }

    /** This spec with link decoder {@code name} ({@code dot} or {@code mlp}). */
    public TrainSpec withDecoder(String name) {
      return with(
          backend, device, featureAccess, reuse, name, featureCacheDirect, featureCacheWindow);
    }

    /**
     * This spec reading its {@code featureCache} rows with {@code O_DIRECT} ({@code true}) or
     * through the page cache.
     */
    public TrainSpec withFeatureCacheDirect(boolean direct) {
      return with(backend, device, featureAccess, reuse, decoder, direct, featureCacheWindow);
    }

    /**
     * This spec planning {@code batches} batches at a time through a {@code belady} feature cache,
     * or {@link RowCache#AUTO_WINDOW}.
     */
    public TrainSpec withFeatureCacheWindow(int batches) {
      return with(backend, device, featureAccess, reuse, decoder, featureCacheDirect, batches);
    }

    private TrainSpec with(
        String backend,
        int device,
        String featureAccess,
        HotReuse reuse,
        String decoder,
        boolean featureCacheDirect,
        int featureCacheWindow) {
      return new TrainSpec(
          graph,
          shards,
          modelDir,
          model,
          hidden,
          layers,
          dropout,
          activation,
          featureNorm,
          lr,
          weightDecay,
          schedule,
          epochs,
          seed,
          resume,
          valShards,
          loaderThreads,
          prefetch,
          logEvery,
          verify,
          featureCache,
          featureCacheBytes,
          backend,
          device,
          featureAccess,
          reuse,
          decoder,
          featureCacheDirect,
          featureCacheWindow);
    }

    /** Whether the backend reads the feature rows itself ({@link #ZERO_COPY}). */
    public boolean zeroCopy() {
      return ZERO_COPY.equals(featureAccess);
    }

    /** The documented defaults for a store, shards and model dir. */
    public static TrainSpec defaults(Path graph, Path shards, Path modelDir) {
      return new TrainSpec(
          graph,
          shards,
          modelDir,
          Defaults.MODEL,
          Defaults.HIDDEN,
          0,
          (float) Defaults.DROPOUT,
          Defaults.ACTIVATION,
          Defaults.FEATURE_NORM,
          (float) Defaults.LR,
          (float) Defaults.WEIGHT_DECAY,
          Defaults.SCHEDULE,
          Defaults.EPOCHS,
          0,
          false,
          null,
          2,
          2,
          0,
          true,
          null,
          0);
    }
  }

  /** What a training run did. */
  public record TrainResult(ModelConfig config, List<EpochStats> epochs) {}

  /** A store's identity for checkpoints and shards: sha-256 of its manifest's defining fields. */
  public static String storeFingerprint(StoreManifest m) {
    String s =
        m.inputFingerprint
            + "|"
            + m.vertices
            + "|"
            + m.edges
            + "|"
            + m.featureDim
            + "|"
            + m.classes
            + "|"
            + m.options;
    return Checksums.sha256(s).substring(0, 16);
  }

  static String sha256(Path file) {
    try {
      return Checksums.sha256(Files.readAllBytes(file)).substring(0, 16);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Number of hops of the shards' batches: the manifest's fanouts, else the first batch's. */
  static int shardLayers(ShardSet shards, GraphStore store, boolean verify) {
    if (shards.layers() > 0) {
      return shards.layers();
    }
    EpochData d =
        shards.epochData(store.features(), store.manifest().featureDim, "none", 1, 1, verify);
    try (BatchStream s = d.open(0)) {
      TrainBatch b = s.next();
      if (b == null) {
        throw new InvalidInputException("shards in " + shards.dir() + " hold no batches");
      }
      return b.batch().layers();
    }
  }

  /** Checks that the shards were sampled from {@code store} and fit its features. */
  static void checkShardsMatch(ShardSet shards, GraphStore store) {
    ShardManifest sm = shards.manifest();
    StoreManifest m = store.manifest();
    if (sm.storeVertices != m.vertices || sm.storeEdges != m.edges) {
      throw new InvalidInputException(
          "shards in "
              + shards.dir()
              + " were sampled from a graph of "
              + sm.storeVertices
              + " vertices and "
              + sm.storeEdges
              + " edges but "
              + store.root()
              + " has "
              + m.vertices
              + " and "
              + m.edges
              + ": they come from another graph store");
    }
    if (sm.storeFingerprint != null) {
      String fp = m.fingerprint();
      if (!sm.storeFingerprint.equalsIgnoreCase(fp)) {
        throw new InvalidInputException(
            "shards in "
                + shards.dir()
                + " were sampled from another graph store: their store_fingerprint is "
                + sm.storeFingerprint
                + " but "
                + store.root()
                + " has fingerprint "
                + fp);
      }
    }
    if (sm.featureEncoding().stored()) {
      StoreManifest.FileEntry params = m.file(StoreLayout.FEATURE_PARAMS);
      String crc = params == null ? null : params.crc32c;
      if (!sm.features.equals(m.featureEncoding)
          || sm.featureParamsCrc32c == null
          || !sm.featureParamsCrc32c.equalsIgnoreCase(String.valueOf(crc))) {
        throw new InvalidInputException(
            "shards in "
                + shards.dir()
                + " inline "
                + sm.features
                + " rows encoded with parameters of CRC32C "
                + sm.featureParamsCrc32c
                + ", but "
                + store.root()
                + " stores "
                + m.featureEncoding
                + " features"
                + (crc == null ? "" : " with parameters of CRC32C " + crc)
                + "; train on the store the shards were sampled from");
      }
    }
    if (sm.featureEncoding() != FeatureEncoding.NONE && sm.featureDim != m.featureDim) {
      throw new InvalidInputException(
          "shards in "
              + shards.dir()
              + " inline features of dimension "
              + sm.featureDim
              + " but "
              + store.root()
              + " has feature_dim "
              + m.featureDim);
    }
  }

  /**
   * Checks, from the manifests alone, that {@code spec} can train: the store has features and at
   * least two classes, the shards (and validation shards) were sampled from this store, and the
   * model's layers match the shards' hops; with {@code spec.verify()} also that the store's files
   * match their CRC32C (once per process, see {@link GraphStore#verifyChecksumsOnce}). Callers that
   * start training elsewhere (a Spark task) call it first, so bad input fails where it was given.
   *
   * @throws InvalidInputException naming the store or shards and what was expected
   */
  public static void checkInputs(TrainSpec spec) {
    try (GraphStore store = GraphStore.open(spec.graph(), spec.verify())) {
      checkInputs(spec, store, ShardSet.open(spec.shards()));
    }
  }

  /** {@link #checkInputs(TrainSpec)} on opened inputs; returns the shards' hops. */
  private static int checkInputs(TrainSpec spec, GraphStore store, ShardSet shards) {
    StoreManifest m = store.manifest();
    if (m.featureDim <= 0) {
      throw new InvalidInputException(
          "graph store " + spec.graph() + " has no features (feature_dim 0); training needs them");
    }
    boolean link = isLink(shards);
    if (m.classes < 2 && !link) {
      throw new InvalidInputException(
          "graph store " + spec.graph() + " has " + m.classes + " classes; training needs >= 2");
    }
    if (!link && !ModelConfig.DOT.equals(spec.decoder())) {
      throw new InvalidInputException(
          "--decoder "
              + spec.decoder()
              + " with node-classification shards ("
              + spec.shards()
              + "): a decoder scores pairs of a link model; sample with --task link or leave"
              + " --decoder out");
    }
    if (link && spec.valShards() != null) {
      throw new InvalidInputException(
          "--val-shards with link-prediction shards ("
              + spec.shards()
              + "): link models are validated by evaluate on the store's held-out edges; leave"
              + " --val-shards out");
    }
    checkFeatureAccess(spec, store, shards);
    checkShardsMatch(shards, store);
    int hops = shardLayers(shards, store, spec.verify());
    if (spec.layers() > 0 && spec.layers() != hops) {
      throw new InvalidInputException(
          "--layers "
              + spec.layers()
              + " but the shards in "
              + spec.shards()
              + " hold "
              + hops
              + "-hop samples; sample with "
              + spec.layers()
              + " fanouts or pass --layers "
              + hops);
    }
    if (spec.valShards() != null) {
      checkShardsMatch(ShardSet.open(spec.valShards()), store);
    }
    return hops;
  }

  /**
   * Checks that {@code spec.featureAccess()} can read this store's features for these shards:
   * zero-copy reads the store's rows in place (f32 as stored, quantized rows decoded by the
   * backend, on a GPU by a kernel from the encoded bytes), or, with a feature cache, from the
   * cache's pages the backend reads in place; so it refuses shards with inline features and a
   * feature norm (rows are read as stored, only decoded).
   */
  static void checkFeatureAccess(TrainSpec spec, GraphStore store, ShardSet shards) {
    String a = spec.featureAccess();
    if (TrainSpec.GATHER.equals(a)) {
      return;
    }
    if (!TrainSpec.ZERO_COPY.equals(a)) {
      throw new InvalidInputException(
          "--feature-access "
              + a
              + "; expected "
              + TrainSpec.GATHER
              + " or "
              + TrainSpec.ZERO_COPY);
    }
    if (shards.featureEncoding() != FeatureEncoding.NONE) {
      throw new InvalidInputException(
          "shards "
              + spec.shards()
              + " inline "
              + shards.featureEncoding()
              + " features; --feature-access zero-copy reads node-id-only shards (sample without"
              + " inline features), or use --feature-access gather");
    }
    if (!"none".equals(spec.featureNorm())) {
      throw new InvalidInputException(
          "--feature-access zero-copy reads the rows as stored and cannot apply --feature-norm "
              + spec.featureNorm()
              + "; pass --feature-norm none (or normalize the features before prepare)");
    }
  }

  /** Trains (or resumes) a model; checkpoints and metrics land in {@code spec.modelDir()}. */
  public static TrainResult train(TrainSpec spec, PrintStream progress) {
    return train(spec, progress, model -> GradientReducer.LOCAL, false);
  }

  /**
   * As {@link #train(TrainSpec, PrintStream)}, as one worker of data-parallel training (see {@code
   * docs/distributed.md}): {@code reducerFor} gives the gradient reducer for the model (called
   * once); with more than one worker this worker trains on its share of every epoch's batches
   * ({@link ShardedEpochData}), only rank 0 validates and writes the model dir, and {@code retry}
   * resumes from the model dir's checkpoint even without {@code spec.resume()} (a retried barrier
   * stage).
   */
  public static TrainResult train(
      TrainSpec spec,
      PrintStream progress,
      Function<GnnModel, GradientReducer> reducerFor,
      boolean retry) {
    return train(spec, progress, reducerFor, retry, () -> false);
  }

  /**
   * As {@link #train(TrainSpec, PrintStream, Function, boolean)}, stopping with {@link
   * TrainCancelledException} before the next batch once {@code cancelled} returns true (see {@link
   * Trainer#cancelWhen}); the model dir then holds the checkpoint of the last complete epoch, if
   * any.
   *
   * @throws OutOfHeapException before training when the model and the batches the loaders keep
   *     ready cannot fit in this JVM's heap ({@code Runtime.maxMemory()}), or when the heap ran out
   *     during training
   */
  public static TrainResult train(
      TrainSpec spec,
      PrintStream progress,
      Function<GnnModel, GradientReducer> reducerFor,
      boolean retry,
      BooleanSupplier cancelled) {
    return train(spec, progress, reducerFor, retry, cancelled, model -> {});
  }

  /**
   * As {@link #train(TrainSpec, PrintStream, Function, boolean, BooleanSupplier)}, calling {@code
   * afterFit} with the trained model after the last epoch and before the model and its backend are
   * released (e.g. data-parallel training's final check that the replicas agree). The model, the
   * trainer and the backend are closed when the run ends, normally or not.
   */
  public static TrainResult train(
      TrainSpec spec,
      PrintStream progress,
      Function<GnnModel, GradientReducer> reducerFor,
      boolean retry,
      BooleanSupplier cancelled,
      Consumer<GnnModel> afterFit) {
    try {
      return run(spec, progress, reducerFor, retry, cancelled, afterFit);
    } catch (RuntimeException | OutOfMemoryError e) {
      // The run's boundary: what it allocated is unreachable again.
      OutOfMemoryError oom = TrainMemory.find(e);
      if (oom == null) {
        throw e;
      }
      throw TrainMemory.of(spec, retry).ranOut(oom, Runtime.getRuntime().maxMemory());
    }
  }

  private static TrainResult run(
      TrainSpec spec,
      PrintStream progress,
      Function<GnnModel, GradientReducer> reducerFor,
      boolean retry,
      BooleanSupplier cancelled,
      Consumer<GnnModel> afterFit) {
    try (GraphStore store = GraphStore.open(spec.graph(), spec.verify())) {
      StoreManifest m = store.manifest();
      ShardSet shards = ShardSet.open(spec.shards());
      int hops = checkInputs(spec, store, shards);
      boolean link = isLink(shards);
      ModelConfig cfg =
          new ModelConfig(
              spec.model(),
              m.featureDim,
              spec.hidden(),
              link ? spec.hidden() : m.classes, // link: the last layer outputs embeddings
              hops,
              spec.dropout(),
              spec.activation(),
              spec.featureNorm(),
              link ? spec.decoder() : ModelConfig.DOT);
      try (ModelLease lease =
          ModelLease.open(cfg, Backends.select(spec.backend(), spec.device()))) {
        GnnModel model = lease.model();
        boolean gather = !spec.zeroCopy();
        PagedFeatureRows pages = null;
        if (!gather && spec.featureCache() != null) {
          // the cache fills pages the backend reads in place (pinned host memory on a GPU)
          pages = lease.own(lease.backend().pagedFeatureRows(store.featureParams()));
        }
        int rowBytes = store.featureParams() == null ? 0 : store.featureParams().rowBytes();
        new TrainMemory(
                spec,
                new TrainMemory.Store(m.vertices, m.featureDim, rowBytes),
                shards.manifest(),
                retry,
                pages == null || pages.onHeap())
            .check(model.numParams(), Runtime.getRuntime().maxMemory());
        GradientReducer reducer = reducerFor.apply(model);
        Trainer trainer =
            lease.own(
                new Trainer(
                    model,
                    new TrainOptions(
                        spec.epochs(),
                        spec.lr(),
                        spec.weightDecay(),
                        LrSchedule.parse(spec.schedule()),
                        spec.seed()),
                    reducer));
        trainer.cancelWhen(cancelled);
        trainer.reuseHot(spec.reuse(), (int) m.vertices, v -> store.csr().degree(v));
        PageMemory cachePages = PageMemory.HEAP;
        if (pages != null) {
          trainer.readFeaturesFrom(pages);
          cachePages = pages;
        } else if (!gather) {
          trainer.readFeaturesFrom(lease.own(lease.backend().mapFeatureRows(store)));
        }
        ShardSet vs =
            spec.valShards() != null && reducer.rank() == 0
                ? ShardSet.open(spec.valShards())
                : null;
        try (RowCache cache = openCache(spec, store, shards, spec.featureCache(), cachePages);
            RowCache valCache =
                vs == null || spec.featureCache() == null
                    ? null
                    : openCache(spec, store, vs, "none")) {
          EpochData train =
              shards.epochData(
                  store.features(),
                  cache,
                  m.featureDim,
                  cfg.featureNorm(),
                  spec.loaderThreads(),
                  spec.prefetch(),
                  spec.verify(),
                  gather);
          if (reducer.worldSize() > 1) {
            train = new ShardedEpochData(train, reducer.rank(), reducer.worldSize());
          }
          EpochData val =
              vs == null
                  ? null
                  : vs.epochData(
                      store.features(),
                      valCache,
                      m.featureDim,
                      cfg.featureNorm(),
                      spec.loaderThreads(),
                      spec.prefetch(),
                      spec.verify(),
                      gather || valCache != null);
          Map<String, String> identity = new LinkedHashMap<>();
          identity.put("graph", storeFingerprint(m));
          identity.put("shards", shards.manifest().fingerprint());
          if (link) { // absent for node models, so their checkpoints keep their identity
            identity.put(LinkStep.TASK, "link");
            identity.put(LinkStep.LOGIT_SCALE_KEY, Float.toString(LinkStep.LOGIT_SCALE));
          }
          List<EpochStats> stats =
              trainer.fit(
                  train,
                  val,
                  spec.modelDir(),
                  spec.resume() || retry,
                  identity,
                  progress,
                  spec.logEvery());
          afterFit.accept(model);
          return new TrainResult(cfg, stats);
        }
      }
    }
  }

  /** I/O threads of a feature cache's disk reader (the benchmarks default to it too). */
  public static final int CACHE_IO_THREADS = 4;

  /**
   * A feature cache of {@code spec.featureCacheBytes()} for {@code shards} ({@code policy} null:
   * none, the memory-mapped store is read). The validation shards get their own cache of policy
   * {@code none} (no memory): they are read while the next training epoch's loader already holds
   * the training cache.
   */
  static RowCache openCache(TrainSpec spec, GraphStore store, ShardSet shards, String policy) {
    return openCache(spec, store, shards, policy, PageMemory.HEAP);
  }

  /** As above, the cached rows kept in {@code pages}. */
  static RowCache openCache(
      TrainSpec spec, GraphStore store, ShardSet shards, String policy, PageMemory pages) {
    if (policy == null) {
      return null;
    }
    CachePolicy p = CachePolicy.parse(policy);
    long bytes = p == CachePolicy.NONE ? 0 : spec.featureCacheBytes();
    long rowBytes = store.featureParams() == null ? 0 : store.featureParams().rowBytes();
    if (p != CachePolicy.NONE && bytes < rowBytes) {
      throw new InvalidInputException(
          "--feature-cache "
              + policy
              + " needs --feature-cache-bytes of at least one feature row ("
              + rowBytes
              + " bytes as the store encodes it, "
              + store.manifest().featureEncoding
              + "), got "
              + spec.featureCacheBytes()
              + "; give the cache size in bytes, or use --feature-cache none");
    }
    if (shards.featureEncoding() != FeatureEncoding.NONE) {
      throw new InvalidInputException(
          spec.shards()
              + " inlines "
              + shards.featureEncoding()
              + " features; --feature-cache reads node-id-only shards (sample without inline"
              + " features), or leave --feature-cache out");
    }
    return new RowCache(
        FeatureFiles.open(store, CACHE_IO_THREADS, spec.featureCacheDirect()),
        p,
        bytes,
        pages,
        spec.featureCacheWindow());
  }

  /** Whether {@code shards} hold link-prediction batches ({@code sample --task link}). */
  static boolean isLink(ShardSet shards) {
    return "link".equals(shards.manifest().options.get("task"));
  }

  /** Whether checkpoint {@code ck} is of a link-prediction model. */
  static boolean isLink(Checkpoint ck) {
    return "link".equals(ck.meta().get("identity." + LinkStep.TASK));
  }

  /** The task of the model in {@code modelDir}: {@code link} or {@code node}. */
  public static String task(Path modelDir, String pick) {
    return isLink(Checkpoint.readForInference(modelDir, pick)) ? "link" : "node";
  }

  /**
   * A trained model loaded from its model dir and checked against a store, with its backend; the
   * caller closes the lease.
   */
  static ModelLease load(Path modelDir, String pick, GraphStore store) {
    return load(modelDir, Checkpoint.readForInference(modelDir, pick), store);
  }

  /**
   * As {@link #load(Path, String, GraphStore)}, of checkpoint {@code ck} read from {@code
   * modelDir}.
   */
  static ModelLease load(Path modelDir, Checkpoint ck, GraphStore store) {
    ModelConfig cfg = ck.modelConfig();
    StoreManifest m = store.manifest();
    if (cfg.inDim() != m.featureDim) {
      throw new InvalidInputException(
          "the model in "
              + modelDir
              + " takes "
              + cfg.inDim()
              + " features but "
              + store.root()
              + " has feature_dim "
              + m.featureDim);
    }
    if (cfg.classes() != m.classes && !isLink(ck)) {
      throw new InvalidInputException(
          "the model in "
              + modelDir
              + " predicts "
              + cfg.classes()
              + " classes but "
              + store.root()
              + " has "
              + m.classes);
    }
    String graph = ck.meta().get("identity.graph");
    if (graph != null && !graph.equals(storeFingerprint(m))) {
      throw new InvalidInputException(
          "the model in "
              + modelDir
              + " was trained on another graph store (fingerprint "
              + graph
              + "), not "
              + store.root()
              + " ("
              + storeFingerprint(m)
              + ")");
    }
    ModelLease lease = ModelLease.open(cfg, Backends.select());
    try {
      lease.model().loadParams(ck.params());
    } catch (RuntimeException e) {
      try {
        lease.close();
      } catch (RuntimeException x) {
        e.addSuppressed(x);
      }
      throw e;
    }
    return lease;
  }

  /**
   * Per-vertex logits of the model in {@code modelDir}: full-neighbor (layer-wise) when {@code
   * fanouts} is null, else sampled with {@code fanouts} in batches of {@code batchSize} over the
   * vertices of {@code splitCode} ({@code -1}: all vertices; other rows stay 0).
   */
  static float[] logits(
      GnnModel model, GraphStore store, int[] fanouts, int batchSize, long seed, int splitCode) {
    return outputs(model, store, fanouts, batchSize, seed, splitCode, false).logits();
  }

  /**
   * As {@link #logits}, with the last hidden layer's outputs too when {@code keepHidden} (and the
   * model has a hidden layer), taken from the same forward pass.
   */
  static FullGraphInference.Outputs outputs(
      GnnModel model,
      GraphStore store,
      int[] fanouts,
      int batchSize,
      long seed,
      int splitCode,
      boolean keepHidden) {
    if (fanouts == null) {
      FullGraphInference.Outputs o =
          FullGraphInference.outputs(model, store.csr(), store.features(), 4096);
      return keepHidden ? o : new FullGraphInference.Outputs(o.logits(), null);
    }
    if (fanouts.length != model.numLayers()) {
      throw new InvalidInputException(
          "--fanouts has "
              + fanouts.length
              + " hops but the model has "
              + model.numLayers()
              + " layers");
    }
    int n = store.csr().numVertices();
    int count = 0;
    for (int v = 0; v < n; v++) {
      count += splitCode < 0 || store.vertices().split(v) == splitCode ? 1 : 0;
    }
    int[] seeds = new int[count];
    for (int v = 0, i = 0; v < n; v++) {
      if (splitCode < 0 || store.vertices().split(v) == splitCode) {
        seeds[i++] = v;
      }
    }
    int classes = model.config().classes();
    int hiddenLayer = keepHidden ? model.numLayers() - 2 : -1;
    int dim = hiddenLayer >= 0 ? model.layerOutDim(hiddenLayer) : 0;
    float[] out = new float[Math.multiplyExact(n, classes)];
    float[] hidden = hiddenLayer >= 0 ? new float[Math.multiplyExact(n, dim)] : null;
    if (count == 0) {
      return new FullGraphInference.Outputs(out, hidden);
    }
    SampledEpochs se =
        new SampledEpochs(
            store.csr(),
            store.vertices(),
            store.features(),
            seeds,
            fanouts,
            batchSize,
            seed,
            false,
            model.config().featureNorm(),
            2);
    try (BatchStream s = se.open(0)) {
      TrainBatch b;
      while ((b = s.next()) != null) {
        float[] lg = model.forward(io.fanout.nn.Block.of(b.batch()), b.features(), false, 0L);
        // The seeds are the first destinations of every block, so the first rows of the hidden
        // layer's output are theirs.
        float[] h = hidden != null ? model.layerOutput(hiddenLayer) : null;
        int[] nodes = b.batch().nodes();
        for (int i = 0; i < b.batch().numSeeds(); i++) {
          System.arraycopy(lg, i * classes, out, nodes[i] * classes, classes);
          if (h != null) {
            System.arraycopy(h, i * dim, hidden, nodes[i] * dim, dim);
          }
        }
        s.recycle(b);
      }
    }
    return new FullGraphInference.Outputs(out, hidden);
  }

  /**
   * Accuracy per split ({@code train}, {@code val}, {@code test}) of the model in {@code modelDir}.
   */
  public static Map<String, Accuracy> evaluate(
      Path graph, Path modelDir, int[] fanouts, int batchSize, long seed) {
    return evaluate(graph, modelDir, Checkpoint.DEFAULT_PICK, fanouts, batchSize, seed);
  }

  /**
   * As {@link #evaluate(Path, Path, int[], int, long)}, of the checkpoint {@code pick} ({@code
   * last} or {@code best}; see {@link Checkpoint#readForInference(Path, String)}).
   */
  public static Map<String, Accuracy> evaluate(
      Path graph, Path modelDir, String pick, int[] fanouts, int batchSize, long seed) {
    return evaluate(graph, modelDir, pick, fanouts, batchSize, seed, true);
  }

  /**
   * As {@link #evaluate(Path, Path, String, int[], int, long)}; {@code verify} checks the store's
   * files against their CRC32C first (once per process, see {@link
   * GraphStore#verifyChecksumsOnce}).
   */
  public static Map<String, Accuracy> evaluate(
      Path graph,
      Path modelDir,
      String pick,
      int[] fanouts,
      int batchSize,
      long seed,
      boolean verify) {
    try (GraphStore store = GraphStore.open(graph, verify);
        ModelLease lease = load(modelDir, pick, store)) {
      GnnModel model = lease.model();
      Map<String, Accuracy> out = new LinkedHashMap<>();
      float[] full = fanouts == null ? logits(model, store, null, 0, 0, -1) : null;
      for (byte split = StoreLayout.SPLIT_TRAIN; split <= StoreLayout.SPLIT_TEST; split++) {
        float[] lg = full != null ? full : logits(model, store, fanouts, batchSize, seed, split);
        out.put(
            StoreLayout.splitName(split),
            Evaluation.accuracy(lg, model.config().classes(), store.vertices(), split));
      }
      return out;
    }
  }

  /**
   * Link-prediction metrics ({@link LinkMetrics}) of the link model in {@code modelDir} on the
   * store's held-out {@code val} and {@code test} edges and their fixed negatives, scored as in
   * training ({@link LinkStep}: scaled cosine, or the model's MLP decoder) from full-neighbor
   * embeddings of the training graph.
   *
   * @throws InvalidInputException when the model is not a link model or the store has no edge split
   */
  public static Map<String, LinkMetrics> evaluateLink(
      Path graph, Path modelDir, String pick, boolean verify) {
    try (GraphStore store = GraphStore.open(graph, verify)) {
      HeldOutEdges.requireEdgeSplit(store.root(), store.manifest(), "link evaluation");
      Checkpoint ck = Checkpoint.readForInference(modelDir, pick);
      if (!isLink(ck)) {
        throw new InvalidInputException(
            "the model in "
                + modelDir
                + " is a node classifier; link metrics need a model trained on sample --task"
                + " link shards");
      }
      float logitScale = LinkStep.logitScale(ck.meta());
      Map<String, float[]> scored = new LinkedHashMap<>();
      try (ModelLease lease = load(modelDir, ck, store)) {
        float[] emb = logits(lease.model(), store, null, 0, 0, -1);
        int dim = lease.model().config().classes();
        for (String split : StoreLayout.HELD_OUT_SPLITS) {
          HeldOutEdges h = HeldOutEdges.read(store, split);
          float[] scores = new float[h.size()];
          LinkStep.scores(lease.model(), logitScale, emb, dim, h.src, h.dst, h.size(), scores);
          scored.put(split, scores);
        }
      }
      Map<String, LinkMetrics> out = new LinkedHashMap<>();
      for (String split : StoreLayout.HELD_OUT_SPLITS) {
        HeldOutEdges h = HeldOutEdges.read(store, split);
        float[] scores = scored.get(split);
        int p = h.positives();
        int[] ps = new int[p];
        float[] pos = new float[p];
        int[] ns = new int[h.size() - p];
        float[] neg = new float[h.size() - p];
        for (int i = 0, a = 0, b = 0; i < h.size(); i++) {
          if (h.label[i] == 1) {
            ps[a] = h.src[i];
            pos[a++] = scores[i];
          } else {
            ns[b] = h.src[i];
            neg[b++] = scores[i];
          }
        }
        out.put(split, LinkMetrics.of(ps, pos, ns, neg));
      }
      return out;
    }
  }

  /**
   * What {@link #scorePairs} scores and where it writes the scores.
   *
   * @param pairs the candidate pairs, by dense and original ids
   * @param output the output directory (Parquet: src, dst, score)
   * @param overwrite replace an output of another request (else it is an error)
   * @param pick the checkpoint, {@code last} or {@code best}
   * @param verify check the store's files against their CRC32C first (once per process)
   */
  public record PairRequest(
      Path graph,
      Path modelDir,
      CandidatePairs pairs,
      Path output,
      boolean overwrite,
      String pick,
      boolean verify) {}

  /**
   * What {@link #scorePairs} did.
   *
   * @param rows pairs scored (one row each)
   * @param skipped a complete output of the same request (store, model file, pairs) was kept
   */
  public record PairOutcome(long rows, boolean skipped) {}

  /**
   * Scores candidate pairs with the link model in {@code r.modelDir()}, by its decoder over
   * full-neighbor embeddings of the training graph (as {@link #evaluateLink}), and writes them in
   * the pairs' order, committed atomically ({@link PairScoreWriter}). An output that already holds
   * the same request is kept; one of another request is replaced only with {@code overwrite}.
   *
   * @throws InvalidInputException when the model is not a link model, a dense id is outside the
   *     store, or the output holds another request without {@code overwrite}
   */
  public static PairOutcome scorePairs(PairRequest r) {
    try (GraphStore store = GraphStore.open(r.graph(), r.verify())) {
      Checkpoint ck = Checkpoint.readForInference(r.modelDir(), r.pick());
      if (!isLink(ck)) {
        throw new InvalidInputException(
            "the model in "
                + r.modelDir()
                + " is a node classifier; scoring pairs needs a model trained on sample --task"
                + " link shards");
      }
      CandidatePairs p = r.pairs();
      int n = store.csr().numVertices();
      for (int i = 0; i < p.size(); i++) {
        if (p.src()[i] < 0 || p.src()[i] >= n || p.dst()[i] < 0 || p.dst()[i] >= n) {
          throw new InvalidInputException(
              "candidate pair "
                  + i
                  + " has dense ids ("
                  + p.src()[i]
                  + ", "
                  + p.dst()[i]
                  + ") but "
                  + store.root()
                  + " has vertices 0.."
                  + (n - 1));
        }
      }
      String request =
          Checksums.sha256(
              "pairs|"
                  + store.manifest().fingerprint()
                  + "|"
                  + sha256(Checkpoint.inferenceFile(r.modelDir(), r.pick()))
                  + "|"
                  + p.fingerprint());
      long kept = IdKeyedParquet.rowsToKeep(r.output(), request, r.overwrite(), "pair scores");
      if (kept >= 0) {
        return new PairOutcome(kept, true);
      }
      float[] scores = new float[p.size()];
      try (ModelLease lease = load(r.modelDir(), ck, store)) {
        GnnModel model = lease.model();
        float[] emb = logits(model, store, null, 0, 0, -1);
        LinkStep.scores(
            model,
            LinkStep.logitScale(ck.meta()),
            emb,
            model.config().classes(),
            p.src(),
            p.dst(),
            p.size(),
            scores);
      }
      return new PairOutcome(PairScoreWriter.write(p, scores, r.output(), request), false);
    }
  }

  /**
   * What {@link #infer(InferRequest)} computes and where it writes it.
   *
   * @param predictions output directory of the predictions, or null for none
   * @param embeddings output directory of the embeddings (the last hidden layer), or null for none
   * @param fanouts null for full-neighbor inference, else sampled with these fanouts
   * @param overwrite replace outputs of another request (else they are an error)
   * @param pick the checkpoint, {@code last} or {@code best}
   * @param verify check the store's files against their CRC32C first (once per process, see {@link
   *     GraphStore#verifyChecksumsOnce})
   */
  public record InferRequest(
      Path graph,
      Path modelDir,
      Path predictions,
      Path embeddings,
      int[] fanouts,
      int batchSize,
      long seed,
      boolean overwrite,
      String pick,
      boolean verify) {
    /** A verified request for the {@link Checkpoint#DEFAULT_PICK default} checkpoint. */
    public InferRequest(
        Path graph,
        Path modelDir,
        Path predictions,
        Path embeddings,
        int[] fanouts,
        int batchSize,
        long seed,
        boolean overwrite) {
      this(
          graph,
          modelDir,
          predictions,
          embeddings,
          fanouts,
          batchSize,
          seed,
          overwrite,
          Checkpoint.DEFAULT_PICK,
          true);
    }
  }

  /**
   * What {@link #infer(InferRequest)} did.
   *
   * @param rows vertices per output (one row each)
   * @param embeddingDim width of the embeddings (0 when none were asked for)
   * @param predictionsSkipped the predictions of the same request were already complete
   * @param embeddingsSkipped the embeddings of the same request were already complete
   */
  public record InferOutcome(
      long rows,
      int classes,
      int embeddingDim,
      boolean predictionsSkipped,
      boolean embeddingsSkipped) {}

  /**
   * Writes predictions of every vertex to {@code output} (Parquet, keyed by original id); returns
   * the number of rows.
   */
  public static long infer(
      Path graph,
      Path modelDir,
      Path output,
      int[] fanouts,
      int batchSize,
      long seed,
      boolean overwrite) {
    return infer(
            new InferRequest(graph, modelDir, output, null, fanouts, batchSize, seed, overwrite))
        .rows();
  }

  /**
   * Writes the predictions and/or the embeddings (the last hidden layer's outputs, the output
   * layer's input; for a link model, the embeddings its pairs are scored on, see {@link
   * LinkStep#exportedEmbeddings}) of every vertex as Parquet keyed by the original ids, from one
   * inference pass. Each output is committed atomically on its own (predictions first). An output
   * that already holds the same request (same store, model file and inference settings) is kept and
   * not recomputed; one of another request is replaced only with {@code overwrite}. Everything is
   * checked before anything is written.
   *
   * @throws InvalidInputException on bad input, e.g. embeddings of a 1-layer node classifier (no
   *     hidden layer) or predictions of a link model (no classes)
   * @throws IllegalArgumentException when neither output is given, or both are the same directory
   */
  public static InferOutcome infer(InferRequest r) {
    if (r.predictions() == null && r.embeddings() == null) {
      throw new IllegalArgumentException("infer needs a predictions or an embeddings output");
    }
    if (r.predictions() != null
        && r.embeddings() != null
        && r.predictions()
            .toAbsolutePath()
            .normalize()
            .equals(r.embeddings().toAbsolutePath().normalize())) {
      throw new IllegalArgumentException(
          "predictions and embeddings both go to " + r.predictions() + "; give two directories");
    }
    Checkpoint ck = Checkpoint.readForInference(r.modelDir(), r.pick());
    boolean link = isLink(ck);
    if (link && r.predictions() != null) {
      throw new InvalidInputException(
          "the model in "
              + r.modelDir()
              + " is a link-prediction model and predicts no classes; score candidate pairs with"
              + " infer --task link --pairs TABLE --output DIR, or export its embeddings with"
              + " --embeddings DIR");
    }
    try (GraphStore store = GraphStore.open(r.graph(), r.verify());
        ModelLease lease = load(r.modelDir(), ck, store)) {
      GnnModel model = lease.model();
      int layers = model.numLayers();
      if (r.embeddings() != null && layers < 2 && !link) {
        throw new InvalidInputException(
            "the model in "
                + r.modelDir()
                + " has "
                + layers
                + " layer, hence no hidden layer to take embeddings from; embeddings need a model"
                + " of 2 or more layers (shards sampled with 2 or more fanouts)");
      }
      int classes = model.config().classes();
      int dim = link ? classes : layers >= 2 ? model.layerOutDim(layers - 2) : 0;
      String settings =
          r.fanouts() == null
              ? "full"
              : "sampled "
                  + java.util.Arrays.toString(r.fanouts())
                  + " batch "
                  + r.batchSize()
                  + " seed "
                  + r.seed();
      String request =
          store.manifest().fingerprint()
              + "|"
              + sha256(Checkpoint.inferenceFile(r.modelDir(), r.pick()))
              + "|"
              + settings;
      String predRequest = Checksums.sha256("predictions|" + request);
      String embRequest = Checksums.sha256((link ? "link-embeddings|" : "embeddings|") + request);
      long predKept =
          r.predictions() == null
              ? -1
              : IdKeyedParquet.rowsToKeep(
                  r.predictions(), predRequest, r.overwrite(), "predictions");
      long embKept =
          r.embeddings() == null
              ? -1
              : IdKeyedParquet.rowsToKeep(r.embeddings(), embRequest, r.overwrite(), "embeddings");
      boolean writePred = r.predictions() != null && predKept < 0;
      boolean writeEmb = r.embeddings() != null && embKept < 0;
      long rows = Math.max(predKept, embKept);
      if (writePred || writeEmb) {
        FullGraphInference.Outputs o =
            outputs(model, store, r.fanouts(), r.batchSize(), r.seed(), -1, writeEmb && !link);
        float[] lg = o.logits();
        if (writePred) {
          int n = lg.length / classes;
          float[] probs = new float[lg.length];
          CpuBackend.softmax(lg, n, classes, probs);
          rows =
              PredictionWriter.write(
                  store.dataRoot(), probs, classes, r.predictions(), predRequest);
        }
        if (writeEmb) {
          float[] emb = link ? LinkStep.exportedEmbeddings(model, ck, lg, dim) : o.lastHidden();
          rows = EmbeddingWriter.write(store.dataRoot(), emb, dim, r.embeddings(), embRequest);
        }
      }
      return new InferOutcome(
          rows,
          classes,
          r.embeddings() == null ? 0 : dim,
          r.predictions() != null && !writePred,
          r.embeddings() != null && !writeEmb);
    }
  }
}
