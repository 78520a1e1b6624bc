package io.fanout.train;

import io.fanout.features.FeatureFiles;
import io.fanout.features.RowCache;
import io.fanout.nn.ModelConfig;
import io.fanout.tensor.Backends;
import java.nio.file.Path;

/**
 * Everything {@link TrainRun#train} needs; see {@code docs/training.md} for the defaults.
 *
 * @param verify check the store's files (once per process) and every shard part (as it is read)
 *     against their manifests' CRC32C, and refuse damaged ones
 * @param featureCache null: features come from the memory-mapped store; else the policy ({@code
 *     belady}, {@code lru}, {@code none}) of a {@link RowCache} of {@code featureCacheBytes} that
 *     is then the only feature source (see {@code docs/features.md})
 * @param backend the tensor backend: {@code auto}, {@code cpu}, {@code cpu-checked} or a provider's
 *     name such as {@code cuda} (see {@link Backends#select(String, int)})
 * @param device the accelerator ordinal to run on (from Spark's task resources), or -1 for the
 *     backend's default
 * @param featureAccess {@code gather} (the loader gathers each batch's feature rows on the host,
 *     which are then uploaded) or {@code zero-copy} (only the node ids go up and the backend reads
 *     the rows from the memory-mapped store itself, decoding quantized rows; node-id-only shards,
 *     no feature cache, feature norm none)
 * @param reuse reuse of hot vertices' bottom-layer embeddings ({@link HotReuse#OFF}: none)
 * @param decoder a link model's decoder, {@code dot} or {@code mlp} (node classifiers: {@code dot})
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
    return with(backend, device, featureAccess, r, decoder, featureCacheDirect, featureCacheWindow);
  }

  /** This spec with link decoder {@code name} ({@code dot} or {@code mlp}). */
  public TrainSpec withDecoder(String name) {
    return with(
        backend, device, featureAccess, reuse, name, featureCacheDirect, featureCacheWindow);
  }

  /**
   * This spec reading its {@code featureCache} rows with {@code O_DIRECT} ({@code true}) or through
   * the page cache.
   */
  public TrainSpec withFeatureCacheDirect(boolean direct) {
    return with(backend, device, featureAccess, reuse, decoder, direct, featureCacheWindow);
  }

  /**
   * This spec planning {@code batches} batches at a time through a {@code belady} feature cache, or
   * {@link RowCache#AUTO_WINDOW}.
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
