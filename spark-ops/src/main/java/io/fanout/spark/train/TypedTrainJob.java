package io.fanout.spark.train;

import static io.fanout.conf.options.TrainCommandOptions.*;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.options.DistOptions;
import io.fanout.features.CachePolicy;
import io.fanout.graph.TypedGraph;
import io.fanout.nn.ModelKind;
import io.fanout.nn.typed.HgnSettings;
import io.fanout.shard.TypedShardSet;
import io.fanout.spark.internal.Hooks;
import io.fanout.spark.sample.TypedStoreOpener;
import io.fanout.store.OutputPaths;
import io.fanout.train.TrainSpec;
import io.fanout.train.typed.TypedCacheSettings;
import io.fanout.train.typed.TypedCheckpoint;
import io.fanout.train.typed.TypedHotReuse;
import io.fanout.train.typed.TypedTrainRequest;
import io.fanout.train.typed.TypedTrainRun;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The {@code train} job on a typed (heterogeneous) graph store, from typed shards ({@link
 * TypedTrainRun}): one trainer in a one-task job, or several data-parallel ones in a barrier stage
 * ({@code --workers}), as the one-type path runs ({@link TrainJob#launch}). The trainer features
 * not built for typed stores are refused with one line naming the option. Link shards ({@code
 * sample --task link}) train a link model of their relation.
 */
public final class TypedTrainJob {
  private TypedTrainJob() {}

  /** The typed store opener of this session (the Spark conf hook, else the default). */
  public static TypedStoreOpener opener(SparkSession spark) {
    String name = Hooks.className(spark, Hooks.TYPED_STORE_OPENER, TypedStoreOpener.class);
    return Hooks.instantiate(
        Hooks.TYPED_STORE_OPENER,
        name == null ? TypedStoreOpener.DEFAULT : name,
        TypedStoreOpener.class);
  }

  /** Whether {@code graph} (the {@code --graph} option, may be null) names a typed store. */
  public static boolean isTyped(SparkSession spark, String graph) {
    return graph != null && !graph.isBlank() && opener(spark).isTyped(Path.of(graph));
  }

  /** Options whose every value but the default is a trainer feature not built for typed stores. */
  private static final List<OptionDef<?>> NOT_BUILT = List.of(ACTIVATION, OUT_HEADS, GAT_RESIDUAL);

  /** Refuses the options typed training does not build, with one line naming the option. */
  static void refuseNotBuilt(FanoutConf c) {
    for (OptionDef<?> d : NOT_BUILT) {
      if (c.given(d) && !d.isDefault(c.get(d))) {
        throw new FanoutConfigException("train --" + d.name() + " is not built for typed stores");
      }
    }
    if (!c.get(MODEL).typed()) {
      throw new FanoutConfigException(
          "train --model "
              + c.get(MODEL).id()
              + " is not built for typed stores; use --model rgcn, hsage or hgn");
    }
    if (c.get(MODEL) != ModelKind.HGN) {
      for (OptionDef<?> d : List.of(HEADS, ATTN_SLOPE, ATTN_DROPOUT, ATTN_RESIDUAL, INPUT_WIDTH)) {
        if (c.given(d) && !d.isDefault(c.get(d))) {
          throw new FanoutConfigException(
              "train --" + d.name() + " is not built for --model " + c.get(MODEL).id());
        }
      }
    }
    TypedHotReuse.checkModes(TrainOptionsDefs.reuse(c, c.get(MODEL)));
    if (c.get(BASES) < 0) {
      throw new FanoutConfigException(
          "option 'bases' of train has value " + c.raw(BASES) + "; expected 0 or more");
    }
  }

  /**
   * The attention settings of {@code --model hgn}: {@code --heads}, {@code --attn-slope}, {@code
   * --attn-dropout}, {@code --attn-residual} and {@code --input-width} where given, else {@link
   * HgnSettings#DEFAULT} (the gat defaults of those options do not apply); {@link
   * HgnSettings#DEFAULT} for another model, which reads none of them (its checkpoint records none,
   * so a resumed run compares equal).
   */
  static HgnSettings hgn(FanoutConf c) {
    HgnSettings d = HgnSettings.DEFAULT;
    if (c.get(MODEL) != ModelKind.HGN) {
      return d;
    }
    int heads = c.given(HEADS) ? c.get(HEADS) : d.heads();
    double slope = c.given(ATTN_SLOPE) ? c.get(ATTN_SLOPE) : d.slope();
    double attn = c.given(ATTN_DROPOUT) ? c.get(ATTN_DROPOUT) : d.attnDropout();
    if (heads < 1) {
      throw new FanoutConfigException(
          "option 'heads' of train has value " + c.raw(HEADS) + "; expected 1 or more");
    }
    if (!(slope >= 0 && slope < 1)) {
      throw new FanoutConfigException(
          "option 'attn-slope' of train has value " + c.raw(ATTN_SLOPE) + "; expected [0, 1)");
    }
    if (!(attn >= 0 && attn < 1)) {
      throw new FanoutConfigException(
          "option 'attn-dropout' of train has value " + c.raw(ATTN_DROPOUT) + "; expected [0, 1)");
    }
    double beta = c.given(ATTN_RESIDUAL) ? c.get(ATTN_RESIDUAL) : d.attnResidual();
    if (!(beta >= 0 && beta < 1)) {
      throw new FanoutConfigException(
          "option 'attn-residual' of train has value "
              + c.raw(ATTN_RESIDUAL)
              + "; expected [0, 1)");
    }
    int inputWidth = c.given(INPUT_WIDTH) ? c.get(INPUT_WIDTH) : d.inputWidth();
    if (inputWidth < 0) {
      throw new FanoutConfigException(
          "option 'input-width' of train has value "
              + c.raw(INPUT_WIDTH)
              + "; expected 0 (--hidden) or more");
    }
    return new HgnSettings(heads, (float) slope, (float) attn, d.relationDim())
        .withAttnResidual((float) beta)
        .withInputWidth(inputWidth);
  }

  /**
   * Trains (or resumes) a typed model; see {@link TrainJob#run}: as the one-type path, one worker
   * trains in a one-task job (so that cancelling the run's job group stops it), several in a
   * barrier stage ({@link TypedReplica}).
   */
  public static TrainOutcome run(SparkSession spark, FanoutConf c, PrintStream progress) {
    refuseNotBuilt(c);
    c.atLeast(LOADER_THREADS, 1);
    c.atLeast(PREFETCH, 1);
    c.atLeast(EARLY_STOP, 0);
    if (!(c.get(LR) > 0) || !(c.get(WEIGHT_DECAY) >= 0) || c.get(EPOCHS) < 1 || c.get(HIDDEN) < 1) {
      throw new FanoutConfigException(
          "train needs --lr > 0, --weight-decay >= 0, --epochs >= 1 and --hidden >= 1");
    }
    double dropout = c.get(DROPOUT);
    if (!(dropout >= 0 && dropout < 1)) {
      throw new FanoutConfigException(
          "option 'dropout' of train has value " + c.raw(DROPOUT) + "; expected 0 <= dropout < 1");
    }
    hgn(c);
    cache(c);
    Path modelDir = Path.of(c.get(MODEL_DIR));
    OutputPaths.check(modelDir, "--model-dir");
    Path shards = Path.of(c.get(SHARDS));
    int workers = BarrierRunner.resolveWorkers(spark, c.get(DistOptions.WORKERS));
    String openerClass = Hooks.className(spark, Hooks.TYPED_STORE_OPENER, TypedStoreOpener.class);
    DistributedTrain.Outcome o =
        TrainJob.launch(
            spark,
            progress,
            c,
            workers,
            new TypedReplica(
                shippedOptions(c), openerClass == null ? TypedStoreOpener.DEFAULT : openerClass),
            shards,
            workers > 1 ? TypedShardSet.open(shards).manifest() : null,
            TypedCheckpoint.exists(modelDir));
    return TrainOutcome.of(modelDir, o, workers);
  }

  /**
   * The options the replicas rebuild their configuration from ({@link
   * DistributedTrain#shippedOptions}), with the attention settings resolved here: shipped options
   * are all given there, so {@link #hgn} could no longer tell hgn's own defaults from {@code
   * gat}'s.
   */
  static Map<String, String> shippedOptions(FanoutConf c) {
    Map<String, String> shipped = DistributedTrain.shippedOptions(c);
    HgnSettings h = hgn(c);
    shipped.put(HEADS.name(), Integer.toString(h.heads()));
    shipped.put(ATTN_SLOPE.name(), Float.toString(h.slope()));
    shipped.put(ATTN_DROPOUT.name(), Float.toString(h.attnDropout()));
    shipped.put(ATTN_RESIDUAL.name(), Float.toString(h.attnResidual()));
    return shipped;
  }

  /**
   * The run the resolved options {@code c} describe on {@code graph}, on device {@code ordinal} of
   * the backend (-1: its default).
   */
  static TypedTrainRequest request(FanoutConf c, TypedGraph graph, int ordinal) {
    return TypedTrainRequest.builder(graph, Path.of(c.get(SHARDS)), Path.of(c.get(MODEL_DIR)))
        .resume(c.get(RESUME))
        .model(c.get(MODEL))
        .hidden(c.get(HIDDEN))
        .layers(c.get(LAYERS))
        .dropout(c.get(DROPOUT).floatValue())
        .lr(c.get(LR).floatValue())
        .weightDecay(c.get(WEIGHT_DECAY).floatValue())
        .schedule(c.get(SCHEDULE))
        .epochs(c.get(EPOCHS))
        .earlyStop(c.get(EARLY_STOP))
        .seed(c.get(SEED))
        .embeddings(c.get(LEARNED_EMBEDDINGS))
        .bases(c.get(BASES))
        .featureNorm(c.get(FEATURE_NORM))
        .backend(c.get(BACKEND))
        .deviceOrdinal(ordinal)
        .precision(c.get(PRECISION))
        .verify(c.get(SharedOptions.VERIFY))
        .valShards(c.get(VAL_SHARDS).isBlank() ? null : Path.of(c.get(VAL_SHARDS)))
        .loading(new TrainSpec.Loading(c.get(LOADER_THREADS), c.get(PREFETCH)))
        .hgn(hgn(c))
        .decoder(c.get(DECODER))
        .cache(cache(c))
        .reuse(TrainOptionsDefs.reuse(c, c.get(MODEL)))
        .access(c.get(FEATURE_ACCESS))
        .build();
  }

  /**
   * The feature cache of {@code --feature-cache} and its options, with their one-type meaning and
   * checks ({@link TrainOptionsDefs#featureCache}), or null for none (the memory-mapped store).
   */
  static TypedCacheSettings cache(FanoutConf c) {
    CachePolicy policy = TrainOptionsDefs.featureCache(c);
    int window = TrainOptionsDefs.featureCacheWindow(c, policy);
    return policy == null
        ? null
        : new TypedCacheSettings(
            policy,
            policy == CachePolicy.NONE ? 0 : c.get(FEATURE_CACHE_BYTES),
            c.get(FEATURE_CACHE_IO),
            window);
  }
}
