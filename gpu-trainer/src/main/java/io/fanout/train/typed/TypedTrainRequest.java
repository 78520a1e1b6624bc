package io.fanout.train.typed;

import io.fanout.graph.TypedGraph;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelKind;
import io.fanout.nn.typed.HgnSettings;
import io.fanout.tensor.BackendKind;
import io.fanout.tensor.MatmulPrecision;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.HotReuse;
import io.fanout.train.TrainSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a typed run trains; build one with {@link #builder}, which names every field it sets.
 *
 * @param layers layers, or 0 for the shards' hops
 * @param resume continue the model dir's checkpoint; without it a model dir holding one is refused
 * @param deviceOrdinal the device of {@code backend}, or -1 for its default
 * @param precision the arithmetic of the backend's dense products ({@code --precision}): set on the
 *     backend, which refuses what it cannot compute, and recorded in the checkpoint identity when
 *     not fp32
 * @param schedule the learning rate over the epochs
 * @param earlyStop end training once this many epochs in a row bring no better validation score
 *     ({@code --early-stop}, {@link io.fanout.train.EarlyStop}); 0: off
 * @param valShards typed shards of the target type's validation seeds, scored after every epoch
 *     instead of sampling the val split (of a link model: link shards of the relation's held-out
 *     val pairs, {@code sample --task link --split val}, scored instead of the store's val edges);
 *     null for none
 * @param loading the loader threads and prefetch of the training batches ({@link
 *     TypedShardLoader}); null: read and gathered on the training thread
 * @param cache the feature cache the training (and validation shards') rows are read through
 *     ({@link TypedRowCaches}); null: the memory-mapped store
 * @param reuse hot-embedding reuse ({@link TypedTrainer#reuseHot}; {@link HotReuse#OFF}: none);
 *     node shards only
 * @param access how a step gets the featured types' input rows ({@code --feature-access}, {@link
 *     TypedInPlaceRows}); null: {@link FeatureAccessMode#GATHER}
 */
public record TypedTrainRequest(
    TypedGraph graph,
    Path shards,
    Path modelDir,
    boolean resume,
    ModelKind model,
    int hidden,
    int layers,
    float dropout,
    float lr,
    float weightDecay,
    LrSchedule schedule,
    int epochs,
    int earlyStop,
    long seed,
    EmbeddingMode embeddings,
    int bases,
    FeatureNormKind featureNorm,
    BackendKind backend,
    int deviceOrdinal,
    MatmulPrecision precision,
    boolean verify,
    Path valShards,
    TrainSpec.Loading loading,
    HgnSettings hgn,
    DecoderKind decoder,
    TypedCacheSettings cache,
    HotReuse reuse,
    FeatureAccessMode access) {

  /** The asked feature access; {@link FeatureAccessMode#GATHER} when none was given. */
  FeatureAccessMode featureAccess() {
    return access == null ? FeatureAccessMode.GATHER : access;
  }

  /** The batches gathered ahead of the step through a feature cache. */
  int cachePrefetch() {
    return loading == null ? 1 : loading.prefetch();
  }

  /**
   * A request to train on {@code graph} from {@code shards} into {@code modelDir}; the model's
   * kind, width, dropout, learning rate, weight decay, epochs and seed must be set, every other
   * field starts as the {@link Builder}'s setter says.
   */
  public static Builder builder(TypedGraph graph, Path shards, Path modelDir) {
    return new Builder(graph, shards, modelDir);
  }

  /**
   * Builds a {@link TypedTrainRequest} by name. Fields not set: no resume, the shards' hops, a
   * constant schedule, no early stopping, {@link EmbeddingMode#AUTO}, no bases, no feature norm,
   * the CPU backend on its default device in fp32, no verification, no validation shards, batches
   * read on the training thread, {@link HgnSettings#DEFAULT}, the dot decoder, no feature cache, no
   * hot reuse and gathered feature rows.
   */
  public static final class Builder {
    private final TypedGraph graph;
    private final Path shards;
    private final Path modelDir;
    private boolean resume;
    private ModelKind model;
    private Integer hidden;
    private int layers;
    private Float dropout;
    private Float lr;
    private Float weightDecay;
    private LrSchedule schedule = LrSchedule.CONSTANT;
    private Integer epochs;
    private int earlyStop;
    private Long seed;
    private EmbeddingMode embeddings = EmbeddingMode.AUTO;
    private int bases;
    private FeatureNormKind featureNorm = FeatureNormKind.NONE;
    private BackendKind backend = BackendKind.CPU;
    private int deviceOrdinal = -1;
    private MatmulPrecision precision = MatmulPrecision.FP32;
    private boolean verify;
    private Path valShards;
    private TrainSpec.Loading loading;
    private HgnSettings hgn = HgnSettings.DEFAULT;
    private DecoderKind decoder = DecoderKind.DOT;
    private TypedCacheSettings cache;
    private HotReuse reuse = HotReuse.OFF;
    private FeatureAccessMode access;

    private Builder(TypedGraph graph, Path shards, Path modelDir) {
      this.graph = graph;
      this.shards = shards;
      this.modelDir = modelDir;
    }

    public Builder resume(boolean v) {
      resume = v;
      return this;
    }

    public Builder model(ModelKind v) {
      model = v;
      return this;
    }

    public Builder hidden(int v) {
      hidden = v;
      return this;
    }

    /** Layers, or 0 (the default) for the shards' hops. */
    public Builder layers(int v) {
      layers = v;
      return this;
    }

    public Builder dropout(float v) {
      dropout = v;
      return this;
    }

    public Builder lr(float v) {
      lr = v;
      return this;
    }

    public Builder weightDecay(float v) {
      weightDecay = v;
      return this;
    }

    public Builder schedule(LrSchedule v) {
      schedule = v;
      return this;
    }

    public Builder epochs(int v) {
      epochs = v;
      return this;
    }

    /** {@code --early-stop}; 0 (off) when not set. */
    public Builder earlyStop(int v) {
      earlyStop = v;
      return this;
    }

    public Builder seed(long v) {
      seed = v;
      return this;
    }

    public Builder embeddings(EmbeddingMode v) {
      embeddings = v;
      return this;
    }

    public Builder bases(int v) {
      bases = v;
      return this;
    }

    public Builder featureNorm(FeatureNormKind v) {
      featureNorm = v;
      return this;
    }

    public Builder backend(BackendKind v) {
      backend = v;
      return this;
    }

    /** The device of the backend, or -1 (the default) for its default. */
    public Builder deviceOrdinal(int v) {
      deviceOrdinal = v;
      return this;
    }

    public Builder precision(MatmulPrecision v) {
      precision = v;
      return this;
    }

    public Builder verify(boolean v) {
      verify = v;
      return this;
    }

    public Builder valShards(Path v) {
      valShards = v;
      return this;
    }

    public Builder loading(TrainSpec.Loading v) {
      loading = v;
      return this;
    }

    public Builder hgn(HgnSettings v) {
      hgn = v;
      return this;
    }

    public Builder decoder(DecoderKind v) {
      decoder = v;
      return this;
    }

    public Builder cache(TypedCacheSettings v) {
      cache = v;
      return this;
    }

    public Builder reuse(HotReuse v) {
      reuse = v;
      return this;
    }

    public Builder access(FeatureAccessMode v) {
      access = v;
      return this;
    }

    /**
     * The request.
     *
     * @throws IllegalStateException naming the fields without a default that were not set
     */
    public TypedTrainRequest build() {
      List<String> unset = new ArrayList<>();
      Object[] required = {model, hidden, dropout, lr, weightDecay, epochs, seed};
      String[] names = {"model", "hidden", "dropout", "lr", "weightDecay", "epochs", "seed"};
      for (int i = 0; i < required.length; i++) {
        if (required[i] == null) {
          unset.add(names[i]);
        }
      }
      if (!unset.isEmpty()) {
        throw new IllegalStateException("TypedTrainRequest needs " + unset + " set");
      }
      return new TypedTrainRequest(
          graph,
          shards,
          modelDir,
          resume,
          model,
          hidden,
          layers,
          dropout,
          lr,
          weightDecay,
          schedule,
          epochs,
          earlyStop,
          seed,
          embeddings,
          bases,
          featureNorm,
          backend,
          deviceOrdinal,
          precision,
          verify,
          valShards,
          loading,
          hgn,
          decoder,
          cache,
          reuse,
          access);
    }
  }
}
