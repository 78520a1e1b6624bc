package io.fanout.spark.train;

import static io.fanout.conf.options.TrainCommandOptions.*;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.options.DistOptions;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureCacheIo;
import io.fanout.features.RowCacheSizing;
import io.fanout.nn.AttentionConfig;
import io.fanout.nn.ModelKind;
import io.fanout.train.HotReuse;
import io.fanout.train.ReuseBackward;
import io.fanout.train.TrainSpec;
import java.nio.file.Path;
import java.util.List;

/**
 * The training run that resolved {@link TrainCommandOptions} describe, and the checks of their
 * combinations.
 */
public final class TrainOptionsDefs {
  private TrainOptionsDefs() {}

  /** The training run the resolved options describe. */
  public static TrainSpec spec(FanoutConf c) {
    atLeast(c, EPOCHS, 1);
    atLeast(c, EARLY_STOP, 0);
    atLeast(c, HIDDEN, 1);
    atLeast(c, LAYERS, 0);
    atLeast(c, LOADER_THREADS, 1);
    atLeast(c, PREFETCH, 1);
    atLeast(c, LOG_EVERY, 0);
    atLeast(c, DistOptions.WORKERS, 0);
    int port = c.get(DistOptions.PORT);
    if (port < 0 || port > 65535) {
      throw new FanoutConfigException(
          "option 'dist-port' of train has value "
              + c.raw(DistOptions.PORT)
              + "; expected a TCP port, 0..65535 (0 picks a free one)");
    }
    if (c.get(DistOptions.TIMEOUT_MS) <= 0) {
      throw new FanoutConfigException(
          "option 'dist-timeout-ms' of train has value "
              + c.raw(DistOptions.TIMEOUT_MS)
              + "; expected 1 or more");
    }
    double dropout = c.get(DROPOUT);
    if (!(dropout >= 0 && dropout < 1)) {
      throw new FanoutConfigException(
          "option 'dropout' of train has value " + c.raw(DROPOUT) + "; expected 0 <= dropout < 1");
    }
    if (!(c.get(LR) > 0)) {
      throw new FanoutConfigException(
          "option 'lr' of train has value " + c.raw(LR) + "; expected a positive learning rate");
    }
    if (!(c.get(WEIGHT_DECAY) >= 0)) {
      throw new FanoutConfigException(
          "option 'weight-decay' of train has value "
              + c.raw(WEIGHT_DECAY)
              + "; expected 0 or more");
    }
    String val = c.get(VAL_SHARDS);
    CachePolicy cache = featureCache(c);
    if (c.get(REUSE_HOT) > 0 && cache != null && c.get(FEATURE_ACCESS).readsInPlace()) {
      throw new FanoutConfigException(
          "option 'reuse-hot' of train prunes batches whose rows are read by vertex id; it does not"
              + " work with a --feature-cache read in place (--feature-access zero-copy): drop one,"
              + " or use --feature-access gather");
    }
    HotReuse reuse = reuse(c, c.get(MODEL));
    if (reuse.enabled() && reuse.reusesInputs() && c.get(MODEL) != ModelKind.SAGE) {
      throw new FanoutConfigException(
          "option 'reuse-rows' of train is inputs, which keeps GraphSAGE's aggregated inputs and"
              + " needs --model sage, got "
              + c.get(MODEL).id()
              + "; use --reuse-rows outputs");
    }
    return new TrainSpec(
        new TrainSpec.Inputs(
            Path.of(c.get(GRAPH)),
            Path.of(c.get(SHARDS)),
            val.isBlank() ? null : Path.of(val),
            c.get(SharedOptions.VERIFY)),
        new TrainSpec.Output(Path.of(c.get(MODEL_DIR)), c.get(RESUME), c.get(LOG_EVERY)),
        new TrainSpec.Architecture(
            c.get(MODEL),
            c.get(HIDDEN),
            c.get(LAYERS),
            c.get(DROPOUT).floatValue(),
            c.get(ACTIVATION),
            c.get(FEATURE_NORM),
            c.get(DECODER),
            attention(c)),
        new TrainSpec.Optimization(
            c.get(LR).floatValue(),
            c.get(WEIGHT_DECAY).floatValue(),
            c.get(SCHEDULE),
            c.get(EPOCHS),
            c.get(SEED),
            c.get(EARLY_STOP)),
        new TrainSpec.Loading(c.get(LOADER_THREADS), c.get(PREFETCH)),
        new TrainSpec.FeatureSource(
            c.get(FEATURE_ACCESS),
            cache,
            c.get(FEATURE_CACHE_BYTES),
            c.get(FEATURE_CACHE_IO),
            featureCacheWindow(c, cache),
            c.get(LEARNED_EMBEDDINGS)),
        reuse,
        new TrainSpec.Device(c.get(BACKEND), -1, c.get(PRECISION)));
  }

  /**
   * The {@code --heads}, {@code --attn-slope}, {@code --attn-dropout}, {@code --out-heads} and
   * {@code --gat-residual} of a gat model, checked against the width.
   */
  static AttentionConfig attention(FanoutConf c) {
    // a replayed or Spark ML option map carries every option at its default: refuse a value only
    for (OptionDef<?> d : List.of(ATTN_RESIDUAL, INPUT_WIDTH)) {
      if (c.given(d) && !d.isDefault(c.get(d))) {
        throw new FanoutConfigException(
            "train --" + d.name() + " is built for --model hgn on typed stores only");
      }
    }
    int heads = c.get(HEADS);
    double slope = c.get(ATTN_SLOPE);
    if (heads < 1) {
      throw new FanoutConfigException(
          "option 'heads' of train has value " + c.raw(HEADS) + "; expected 1 or more");
    }
    if (!(slope >= 0 && slope < 1)) {
      throw new FanoutConfigException(
          "option 'attn-slope' of train has value " + c.raw(ATTN_SLOPE) + "; expected [0, 1)");
    }
    if (c.get(MODEL) == ModelKind.GAT && c.get(HIDDEN) % heads != 0) {
      throw new FanoutConfigException(
          "option 'heads' of train has value "
              + heads
              + ", which does not divide --hidden "
              + c.get(HIDDEN)
              + " (gat splits the hidden width between its heads)");
    }
    double dropout = c.get(ATTN_DROPOUT);
    if (!(dropout >= 0 && dropout < 1)) {
      throw new FanoutConfigException(
          "option 'attn-dropout' of train has value " + c.raw(ATTN_DROPOUT) + "; expected [0, 1)");
    }
    if (c.get(OUT_HEADS) < 1) {
      throw new FanoutConfigException(
          "option 'out-heads' of train has value " + c.raw(OUT_HEADS) + "; expected 1 or more");
    }
    return new AttentionConfig(
        heads, (float) slope, (float) dropout, c.get(OUT_HEADS), c.get(GAT_RESIDUAL));
  }

  /**
   * The {@code --feature-cache-window} batches, or {@link RowCacheSizing#AUTO_WINDOW}; refused
   * where it is set and no {@code belady} cache plans.
   */
  static int featureCacheWindow(FanoutConf c, CachePolicy cache) {
    int batches;
    try {
      batches = RowCacheSizing.parseWindowBatches(c.get(FEATURE_CACHE_WINDOW));
    } catch (IllegalArgumentException e) {
      throw new FanoutConfigException(
          "option 'feature-cache-window' of train has value "
              + c.raw(FEATURE_CACHE_WINDOW)
              + "; "
              + e.getMessage());
    }
    if (batches != RowCacheSizing.DEFAULT_WINDOW_BATCHES && cache != CachePolicy.BELADY) {
      throw new FanoutConfigException(
          "option 'feature-cache-window' of train is "
              + c.raw(FEATURE_CACHE_WINDOW)
              + " but only --feature-cache belady plans a window"
              + (cache == null ? " and no --feature-cache is given" : ", not " + cache.id())
              + "; add --feature-cache belady or leave the option out");
    }
    return batches;
  }

  /** The reuse settings of a command that trains GraphSAGE (quickstart, bench-train). */
  public static HotReuse reuse(FanoutConf c) {
    return reuse(c, ModelKind.SAGE);
  }

  /**
   * The {@code --reuse-hot}, {@code --staleness}, {@code --hot-by}, {@code --reuse-refresh}, {@code
   * --reuse-backward} and {@code --reuse-rows} settings for training {@code model}, which decides
   * what {@code --reuse-rows auto} means ({@link HotReuse#resolveRows}).
   */
  public static HotReuse reuse(FanoutConf c, ModelKind model) {
    double f = c.get(REUSE_HOT);
    if (!(f >= 0 && f <= 1)) {
      throw new FanoutConfigException(
          "option 'reuse-hot' of train has value "
              + c.raw(REUSE_HOT)
              + "; expected a fraction of the vertices, 0 <= reuse-hot <= 1");
    }
    int staleness = c.get(STALENESS);
    ReuseBackward backward = c.get(REUSE_BACKWARD);
    try { // each value is valid alone (the options checked them); this refuses a combination
      return new HotReuse(
          f,
          staleness,
          c.get(HOT_BY),
          c.get(REUSE_REFRESH),
          backward,
          HotReuse.resolveRows(c.get(REUSE_ROWS), model, backward));
    } catch (IllegalArgumentException e) {
      throw new FanoutConfigException(e.getMessage());
    }
  }

  /** The {@code --feature-cache} policy, or null when not given (the memory-mapped path). */
  static CachePolicy featureCache(FanoutConf c) {
    String v = c.get(FEATURE_CACHE).trim().toLowerCase(java.util.Locale.ROOT);
    long bytes = c.get(FEATURE_CACHE_BYTES);
    if (v.isEmpty()) {
      if (c.get(FEATURE_CACHE_IO) == FeatureCacheIo.DIRECT) {
        throw new FanoutConfigException(
            "option 'feature-cache-io' of train is direct but no --feature-cache policy is given;"
                + " direct reads are the row cache's (add --feature-cache belady|lru|none"
                + " --feature-cache-bytes N), the memory-mapped path reads through the page cache");
      }
      if (bytes != 0) {
        throw new FanoutConfigException(
            "option 'feature-cache-bytes' of train is "
                + bytes
                + " but no --feature-cache policy is given; add --feature-cache belady|lru|none");
      }
      return null;
    }
    if (!v.equals("belady") && !v.equals("lru") && !v.equals("none")) {
      throw new FanoutConfigException(
          "option 'feature-cache' of train has value "
              + c.raw(FEATURE_CACHE)
              + "; expected one of belady, lru, none");
    }
    if (!v.equals("none") && bytes <= 0) {
      throw new FanoutConfigException(
          "option 'feature-cache' of train is "
              + v
              + " but 'feature-cache-bytes' is "
              + bytes
              + "; give the cache size in bytes (for example 1073741824)");
    }
    return CachePolicy.parse(v);
  }

  private static void atLeast(FanoutConf c, OptionDef<Integer> def, int min) {
    c.atLeast(def, min);
  }
}
