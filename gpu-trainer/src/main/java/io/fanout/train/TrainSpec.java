package io.fanout.train;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureCacheIo;
import io.fanout.features.FeatureFiles;
import io.fanout.features.RowCache;
import io.fanout.features.RowCacheSizing;
import io.fanout.nn.ActivationKind;
import io.fanout.nn.AttentionConfig;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelKind;
import io.fanout.tensor.BackendKind;
import io.fanout.tensor.Backends;
import io.fanout.tensor.MatmulPrecision;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Everything {@link TrainRun#train} needs, in groups of options that change together; see {@code
 * docs/training.md} for what each option does. Built with {@link #builder}, whose Javadoc lists the
 * defaults. A new option belongs to one group: its record, its default in that group's {@code
 * defaults()} and a wither there.
 *
 * @param inputs the store and shards trained on
 * @param output the model dir and what is written there
 * @param architecture the model's shape
 * @param optimization the optimizer, its schedule and the seed
 * @param loading the batch loaders
 * @param features where the input feature rows come from
 * @param reuse reuse of hot vertices' bottom-layer embeddings ({@link HotReuse#OFF}: none)
 * @param device the tensor backend and accelerator
 */
public record TrainSpec(
    Inputs inputs,
    Output output,
    Architecture architecture,
    Optimization optimization,
    Loading loading,
    FeatureSource features,
    HotReuse reuse,
    Device device) {

  public TrainSpec {
    Objects.requireNonNull(inputs, "inputs");
    Objects.requireNonNull(output, "output");
    Objects.requireNonNull(architecture, "architecture");
    Objects.requireNonNull(optimization, "optimization");
    Objects.requireNonNull(loading, "loading");
    Objects.requireNonNull(features, "features");
    Objects.requireNonNull(reuse, "reuse");
    Objects.requireNonNull(device, "device");
  }

  /**
   * The store and shards a run trains on.
   *
   * @param valShards validation shards, or null for none
   * @param verify check the store's files (once per process) and every shard part (as it is read)
   *     against their manifests' CRC32C, and refuse damaged ones
   */
  public record Inputs(Path graph, Path shards, Path valShards, boolean verify) {
    /** No validation shards, verified. */
    public static Inputs defaults(Path graph, Path shards) {
      return new Inputs(graph, shards, null, true);
    }

    public Inputs withValShards(Path dir) {
      return new Inputs(graph, shards, dir, verify);
    }

    public Inputs withVerify(boolean v) {
      return new Inputs(graph, shards, valShards, v);
    }
  }

  /**
   * Where a run writes its checkpoints and metrics, and how it reports.
   *
   * @param resume continue the checkpoint in {@code modelDir} (else one there is refused)
   * @param logEvery print progress every this many batches (0: per epoch only)
   */
  public record Output(Path modelDir, boolean resume, int logEvery) {
    /** A new run, no batch progress. */
    public static Output defaults(Path modelDir) {
      return new Output(modelDir, false, 0);
    }

    public Output withResume(boolean r) {
      return new Output(modelDir, r, logEvery);
    }

    public Output withLogEvery(int batches) {
      return new Output(modelDir, resume, batches);
    }
  }

  /**
   * The model's shape.
   *
   * @param layers the model's layers, or 0 for as many as the shards' hops
   * @param decoder a link model's decoder (node classifiers: {@link DecoderKind#DOT})
   */
  public record Architecture(
      ModelKind model,
      int hidden,
      int layers,
      float dropout,
      ActivationKind activation,
      FeatureNormKind featureNorm,
      DecoderKind decoder,
      AttentionConfig attention) {
    public Architecture {
      Objects.requireNonNull(model, "model");
      Objects.requireNonNull(activation, "activation");
      Objects.requireNonNull(featureNorm, "featureNorm");
      Objects.requireNonNull(decoder, "decoder");
      Objects.requireNonNull(attention, "attention");
    }

    /** A shape with the default attention ({@link AttentionConfig#DEFAULT}, used by gat only). */
    public Architecture(
        ModelKind model,
        int hidden,
        int layers,
        float dropout,
        ActivationKind activation,
        FeatureNormKind featureNorm,
        DecoderKind decoder) {
      this(
          model,
          hidden,
          layers,
          dropout,
          activation,
          featureNorm,
          decoder,
          AttentionConfig.DEFAULT);
    }

    public Architecture withAttention(AttentionConfig a) {
      return new Architecture(model, hidden, layers, dropout, activation, featureNorm, decoder, a);
    }

    /** The documented defaults ({@link Defaults}), layers from the shards, decoder {@code dot}. */
    public static Architecture defaults() {
      return new Architecture(
          Defaults.MODEL,
          Defaults.HIDDEN,
          0,
          (float) Defaults.DROPOUT,
          Defaults.ACTIVATION,
          Defaults.FEATURE_NORM,
          DecoderKind.DOT);
    }

    public Architecture withModel(ModelKind kind) {
      return new Architecture(
          kind, hidden, layers, dropout, activation, featureNorm, decoder, attention);
    }

    public Architecture withHidden(int h) {
      return new Architecture(
          model, h, layers, dropout, activation, featureNorm, decoder, attention);
    }

    public Architecture withLayers(int l) {
      return new Architecture(
          model, hidden, l, dropout, activation, featureNorm, decoder, attention);
    }

    public Architecture withDropout(float d) {
      return new Architecture(
          model, hidden, layers, d, activation, featureNorm, decoder, attention);
    }

    public Architecture withActivation(ActivationKind a) {
      return new Architecture(model, hidden, layers, dropout, a, featureNorm, decoder, attention);
    }

    public Architecture withFeatureNorm(FeatureNormKind norm) {
      return new Architecture(model, hidden, layers, dropout, activation, norm, decoder, attention);
    }

    public Architecture withDecoder(DecoderKind name) {
      return new Architecture(
          model, hidden, layers, dropout, activation, featureNorm, name, attention);
    }
  }

  /**
   * The optimizer, its learning-rate schedule, the epochs and the seed of every random choice.
   *
   * @param earlyStop {@code --early-stop}: end training once this many epochs in a row bring no
   *     better validation accuracy ({@link EarlyStop}; 0: off, which needs no validation shards)
   */
  public record Optimization(
      float lr, float weightDecay, LrSchedule schedule, int epochs, long seed, int earlyStop) {
    public Optimization {
      Objects.requireNonNull(schedule, "schedule");
    }

    /** Without early stopping. */
    public Optimization(float lr, float weightDecay, LrSchedule schedule, int epochs, long seed) {
      this(lr, weightDecay, schedule, epochs, seed, 0);
    }

    /** The documented defaults ({@link Defaults}), seed 0. */
    public static Optimization defaults() {
      return new Optimization(
          (float) Defaults.LR,
          (float) Defaults.WEIGHT_DECAY,
          Defaults.SCHEDULE,
          Defaults.EPOCHS,
          0);
    }

    public Optimization withLr(float rate) {
      return new Optimization(rate, weightDecay, schedule, epochs, seed, earlyStop);
    }

    public Optimization withWeightDecay(float wd) {
      return new Optimization(lr, wd, schedule, epochs, seed, earlyStop);
    }

    public Optimization withSchedule(LrSchedule name) {
      return new Optimization(lr, weightDecay, name, epochs, seed, earlyStop);
    }

    public Optimization withEpochs(int n) {
      return new Optimization(lr, weightDecay, schedule, n, seed, earlyStop);
    }

    public Optimization withSeed(long s) {
      return new Optimization(lr, weightDecay, schedule, epochs, s, earlyStop);
    }

    /** {@code patience} epochs without a better validation accuracy end training (0: off). */
    public Optimization withEarlyStop(int patience) {
      return new Optimization(lr, weightDecay, schedule, epochs, seed, patience);
    }
  }

  /**
   * The batch loaders.
   *
   * @param loaderThreads threads reading and decoding shard parts
   * @param prefetch batches each loader thread keeps ready
   */
  public record Loading(int loaderThreads, int prefetch) {
    /** 2 threads, 2 batches ahead. */
    public static Loading defaults() {
      return new Loading(2, 2);
    }
  }

  /**
   * Where the input feature rows come from.
   *
   * @param access {@link FeatureAccessMode#GATHER} (the loader gathers each batch's feature rows on
   *     the host, which are then uploaded), {@link FeatureAccessMode#ZERO_COPY} (only the node ids
   *     go up and the backend reads the rows from the memory-mapped store itself, decoding
   *     quantized rows; node-id-only shards, feature norm none), {@link FeatureAccessMode#DEVICE}
   *     (as zero-copy, from a copy of the encoded rows in the device's memory; no feature cache) or
   *     {@link FeatureAccessMode#AUTO} (resolved per run by {@link FeatureAccessChoice})
   * @param cache null: features come from the memory-mapped store; else the policy of a {@link
   *     RowCache} of {@code cacheBytes} that is then the only feature source (see {@code
   *     docs/feature-cache.md})
   * @param cacheIo with {@code cache}: how the rows are read from disk ({@link
   *     FeatureCacheIo#DIRECT}: {@code O_DIRECT}, bypassing the kernel's page cache; see {@link
   *     FeatureFiles})
   * @param cacheWindow with {@code cache belady}: the batches planned at a time, or {@link
   *     RowCacheSizing#AUTO_WINDOW} (see {@link PlanWindow})
   * @param learned whether the input is a learned table of one {@code --hidden}-wide vector per
   *     vertex instead of the store's features ({@code --learned-embeddings}): {@link
   *     EmbeddingMode#AUTO} when the store has no features, {@link EmbeddingMode#ALL} always,
   *     {@link EmbeddingMode#OFF} and {@link EmbeddingMode#NON_TARGET} (the store's only type is
   *     the target) never: a store without features is then refused
   */
  public record FeatureSource(
      FeatureAccessMode access,
      CachePolicy cache,
      long cacheBytes,
      FeatureCacheIo cacheIo,
      int cacheWindow,
      EmbeddingMode learned) {
    public FeatureSource {
      Objects.requireNonNull(access, "access");
      Objects.requireNonNull(cacheIo, "cacheIo");
      Objects.requireNonNull(learned, "learned");
    }

    /** A source whose learned table is {@link EmbeddingMode#AUTO} (stores without features). */
    public FeatureSource(
        FeatureAccessMode access,
        CachePolicy cache,
        long cacheBytes,
        FeatureCacheIo cacheIo,
        int cacheWindow) {
      this(access, cache, cacheBytes, cacheIo, cacheWindow, EmbeddingMode.AUTO);
    }

    /** Whether a store of {@code featureDim} features (0: none) trains a learned input table. */
    public boolean learns(int featureDim) {
      return learned.embeds(featureDim, true);
    }

    public FeatureSource withLearned(EmbeddingMode mode) {
      return new FeatureSource(access, cache, cacheBytes, cacheIo, cacheWindow, mode);
    }

    /** Gathered on the host from the memory-mapped store, no cache. */
    public static FeatureSource defaults() {
      return new FeatureSource(
          Defaults.FEATURE_ACCESS,
          null,
          0,
          FeatureCacheIo.BUFFERED,
          RowCacheSizing.DEFAULT_WINDOW_BATCHES);
    }

    /**
     * Whether the backend reads the feature rows itself ({@link FeatureAccessMode#readsInPlace});
     * false while {@code access} is still {@link FeatureAccessMode#AUTO}.
     */
    public boolean readsInPlace() {
      return access.readsInPlace();
    }

    /** Whether the cache reads its rows with {@code O_DIRECT} ({@link FeatureCacheIo#DIRECT}). */
    public boolean cacheDirect() {
      return cacheIo == FeatureCacheIo.DIRECT;
    }

    public FeatureSource withAccess(FeatureAccessMode a) {
      return new FeatureSource(a, cache, cacheBytes, cacheIo, cacheWindow, learned);
    }

    /** A cache of {@code policy} ({@code null}: none) holding {@code bytes}. */
    public FeatureSource withCache(CachePolicy policy, long bytes) {
      return new FeatureSource(access, policy, bytes, cacheIo, cacheWindow, learned);
    }

    public FeatureSource withCacheIo(FeatureCacheIo io) {
      return new FeatureSource(access, cache, cacheBytes, io, cacheWindow, learned);
    }

    public FeatureSource withCacheWindow(int batches) {
      return new FeatureSource(access, cache, cacheBytes, cacheIo, batches, learned);
    }
  }

  /**
   * The tensor backend and the accelerator it runs on.
   *
   * @param backend the backend to select (see {@link Backends#select(BackendKind, int)})
   * @param ordinal the accelerator ordinal to run on (from Spark's task resources), or -1 for the
   *     backend's default
   */
  public record Device(BackendKind backend, int ordinal, MatmulPrecision precision) {
    public Device {
      Objects.requireNonNull(backend, "backend");
      Objects.requireNonNull(precision, "precision");
    }

    /** {@code backend} on device {@code ordinal}, with fp32 products. */
    public Device(BackendKind backend, int ordinal) {
      this(backend, ordinal, MatmulPrecision.FP32);
    }

    /** The automatically chosen backend on its default device, fp32 products. */
    public static Device defaults() {
      return new Device(BackendKind.AUTO, -1);
    }

    public Device withBackend(BackendKind name) {
      return new Device(name, ordinal, precision);
    }

    public Device withOrdinal(int o) {
      return new Device(backend, o, precision);
    }

    public Device withPrecision(MatmulPrecision p) {
      return new Device(backend, ordinal, p);
    }
  }

  /**
   * A builder of a spec for the store {@code graph}, its shards and a model dir, with every other
   * option at its default:
   *
   * <ul>
   *   <li>inputs: no validation shards, verified ({@link Inputs#defaults});
   *   <li>output: a new run (no resume), no batch progress ({@link Output#defaults});
   *   <li>architecture: {@link Defaults#MODEL}, {@link Defaults#HIDDEN} hidden, layers from the
   *       shards, {@link Defaults#DROPOUT} dropout, {@link Defaults#ACTIVATION}, feature norm
   *       {@link Defaults#FEATURE_NORM}, decoder {@code dot} ({@link Architecture#defaults});
   *   <li>optimization: lr {@link Defaults#LR}, weight decay {@link Defaults#WEIGHT_DECAY},
   *       schedule {@link Defaults#SCHEDULE}, {@link Defaults#EPOCHS} epochs, seed 0, no early
   *       stopping ({@link Optimization#defaults});
   *   <li>loading: 2 loader threads, prefetch 2 ({@link Loading#defaults});
   *   <li>features: {@link Defaults#FEATURE_ACCESS}, no feature cache, page-cache reads, window
   *       {@link RowCacheSizing#DEFAULT_WINDOW_BATCHES}, a learned input table on stores without
   *       features ({@link FeatureSource#defaults});
   *   <li>reuse: {@link HotReuse#OFF};
   *   <li>device: backend {@code auto}, default device ({@link Device#defaults}).
   * </ul>
   */
  public static Builder builder(Path graph, Path shards, Path modelDir) {
    return new Builder(
        new TrainSpec(
            Inputs.defaults(graph, shards),
            Output.defaults(modelDir),
            Architecture.defaults(),
            Optimization.defaults(),
            Loading.defaults(),
            FeatureSource.defaults(),
            HotReuse.OFF,
            Device.defaults()));
  }

  /** A builder starting from this spec. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Builds a {@link TrainSpec} a group at a time; see {@link TrainSpec#builder} for defaults. */
  public static final class Builder {
    private Inputs inputs;
    private Output output;
    private Architecture architecture;
    private Optimization optimization;
    private Loading loading;
    private FeatureSource features;
    private HotReuse reuse;
    private Device device;

    private Builder(TrainSpec s) {
      inputs = s.inputs;
      output = s.output;
      architecture = s.architecture;
      optimization = s.optimization;
      loading = s.loading;
      features = s.features;
      reuse = s.reuse;
      device = s.device;
    }

    public Builder inputs(Inputs i) {
      inputs = i;
      return this;
    }

    public Builder inputs(UnaryOperator<Inputs> change) {
      return inputs(change.apply(inputs));
    }

    public Builder output(Output o) {
      output = o;
      return this;
    }

    public Builder output(UnaryOperator<Output> change) {
      return output(change.apply(output));
    }

    public Builder architecture(Architecture a) {
      architecture = a;
      return this;
    }

    public Builder architecture(UnaryOperator<Architecture> change) {
      return architecture(change.apply(architecture));
    }

    public Builder optimization(Optimization o) {
      optimization = o;
      return this;
    }

    public Builder optimization(UnaryOperator<Optimization> change) {
      return optimization(change.apply(optimization));
    }

    public Builder loading(Loading l) {
      loading = l;
      return this;
    }

    public Builder features(FeatureSource f) {
      features = f;
      return this;
    }

    public Builder features(UnaryOperator<FeatureSource> change) {
      return features(change.apply(features));
    }

    public Builder reuse(HotReuse r) {
      reuse = r;
      return this;
    }

    public Builder device(Device d) {
      device = d;
      return this;
    }

    public Builder device(UnaryOperator<Device> change) {
      return device(change.apply(device));
    }

    public TrainSpec build() {
      return new TrainSpec(
          inputs, output, architecture, optimization, loading, features, reuse, device);
    }
  }
}
