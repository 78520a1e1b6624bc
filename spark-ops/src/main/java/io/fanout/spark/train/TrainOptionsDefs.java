package io.fanout.spark.train;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.features.RowCacheSizing;
import io.fanout.tensor.Backends;
import io.fanout.train.Defaults;
import io.fanout.train.HotReuse;
import io.fanout.train.TrainSpec;
import java.nio.file.Path;
import java.util.List;

/** Options shared by the training commands. */
public final class TrainOptionsDefs {
  private TrainOptionsDefs() {}

  public static final OptionDef<String> GRAPH =
      OptionDef.string("graph", null, "graph store directory written by bin/fanout prepare");
  public static final OptionDef<String> MODEL_DIR =
      OptionDef.string("model-dir", null, "model directory (checkpoint.bin, metrics.jsonl)");

  /** Parses {@code "20,20,20"}; an empty string means none. */
  public static int[] fanouts(String s) {
    if (s == null || s.isBlank()) {
      return null;
    }
    String[] parts = s.split(",");
    int[] out = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        out[i] = Integer.parseInt(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new FanoutConfigException(
            "--fanouts expects comma-separated integers like 20,20,20, got '" + s + "'");
      }
      if (out[i] == 0 || out[i] < -1) {
        throw new FanoutConfigException(
            "--fanouts entry " + out[i] + " in '" + s + "'; expected > 0 or -1 (all)");
      }
    }
    return out;
  }

  public static final OptionDef<String> SHARDS =
      OptionDef.string("shards", null, "training shards directory written by bin/fanout sample");
  public static final OptionDef<String> MODEL =
      OptionDef.choice("model", Defaults.MODEL, "GNN architecture", "sage", "gcn");
  public static final OptionDef<Integer> HIDDEN =
      OptionDef.integer("hidden", Defaults.HIDDEN, "hidden width");
  public static final OptionDef<Integer> LAYERS =
      OptionDef.integer("layers", 0, "GNN layers; must equal the shards' hops (0: take theirs)");
  public static final OptionDef<Double> DROPOUT =
      OptionDef.doubleValue("dropout", Defaults.DROPOUT, "dropout on every layer's input");
  public static final OptionDef<String> ACTIVATION =
      OptionDef.choice(
          "activation", Defaults.ACTIVATION, "activation between layers", "relu", "elu");
  public static final OptionDef<String> FEATURE_NORM =
      OptionDef.choice(
          "feature-norm",
          Defaults.FEATURE_NORM,
          "row normalization of input features",
          "none",
          "l1",
          "l2");
  public static final OptionDef<Double> LR =
      OptionDef.doubleValue("lr", Defaults.LR, "Adam learning rate");
  public static final OptionDef<Double> WEIGHT_DECAY =
      OptionDef.doubleValue(
          "weight-decay", Defaults.WEIGHT_DECAY, "L2 weight decay added to the gradients");
  public static final OptionDef<String> SCHEDULE =
      OptionDef.choice(
          "schedule", Defaults.SCHEDULE, "learning rate schedule", "constant", "cosine", "step");
  public static final OptionDef<Integer> EPOCHS =
      OptionDef.integer("epochs", Defaults.EPOCHS, "epochs in total");
  public static final OptionDef<Long> SEED =
      OptionDef.longValue("seed", 0, "seeds initialization and dropout");
  public static final OptionDef<Boolean> RESUME =
      OptionDef.bool("resume", false, "continue from the model dir's last complete checkpoint");
  public static final OptionDef<String> VAL_SHARDS =
      OptionDef.string("val-shards", "", "validation shards, evaluated after every epoch");
  public static final OptionDef<Integer> LOADER_THREADS =
      OptionDef.integer("loader-threads", 2, "background threads reading and decoding shards");
  public static final OptionDef<Integer> PREFETCH =
      OptionDef.integer("prefetch", 2, "batches each loader thread keeps ready");
  public static final OptionDef<String> FEATURE_CACHE =
      OptionDef.string(
          "feature-cache",
          "",
          "keep features on disk behind a row cache of --feature-cache-bytes (belady|lru|none);"
              + " not given: read the memory-mapped store");

  /** {@code --feature-cache-io} values. */
  public static final String BUFFERED_IO = "buffered";

  public static final String DIRECT_IO = "direct";

  public static final OptionDef<Long> FEATURE_CACHE_BYTES =
      OptionDef.longValue(
          "feature-cache-bytes", 0, "bytes of feature rows --feature-cache may hold in memory");
  public static final OptionDef<String> FEATURE_CACHE_IO =
      OptionDef.choice(
          "feature-cache-io",
          BUFFERED_IO,
          "how --feature-cache reads rows from disk: buffered (through the kernel's page cache) or"
              + " direct (O_DIRECT: every miss goes to the device; the file system must support it)",
          BUFFERED_IO,
          DIRECT_IO);
  public static final OptionDef<String> FEATURE_CACHE_WINDOW =
      OptionDef.string(
          "feature-cache-window",
          Integer.toString(RowCacheSizing.DEFAULT_WINDOW_BATCHES),
          "batches --feature-cache belady plans ahead at a time (a superbatch), 1-"
              + RowCacheSizing.MAX_WINDOW_BATCHES
              + "; auto: at least 32, growing with the cache to 16 cache sizes of rows (small"
              + " batches plan closer to the optimum, for up to the cache's bytes of heap)");
  public static final OptionDef<String> BACKEND =
      OptionDef.choice(
          "backend",
          Backends.AUTO,
          "tensor backend: auto takes cuda when a usable GPU is visible, else cpu (saying why);"
              + " cuda fails without one; cpu-checked is the CPU in checking mode",
          "auto",
          "cpu",
          "cuda",
          "cpu-checked");
  public static final OptionDef<String> FEATURE_ACCESS =
      OptionDef.choice(
          "feature-access",
          Defaults.FEATURE_ACCESS,
          "how a step gets its input features: gather (rows gathered on the host, then uploaded)"
              + " or zero-copy (only node ids go up; the backend reads the rows from the mapped"
              + " store, decoding quantized rows itself: cuda, cpu, cpu-checked; node-id-only"
              + " shards, no"
              + " --feature-cache, --feature-norm none)",
          TrainSpec.GATHER,
          TrainSpec.ZERO_COPY);
  public static final OptionDef<Double> REUSE_HOT =
      OptionDef.doubleValue(
          "reuse-hot",
          0.0,
          "fraction of the vertices whose bottom-layer embeddings are computed by a refresh"
              + " worker and reused by batches (0: off)");
  public static final OptionDef<Integer> STALENESS =
      OptionDef.of(
          "staleness",
          HotReuse.AUTO,
          "with --reuse-hot: the most steps a reused embedding may be old, or auto (a twelfth of"
              + " an epoch's steps, at least 1)",
          HotReuse::parseStaleness);
  public static final OptionDef<String> HOT_BY =
      OptionDef.choice(
          "hot-by",
          HotReuse.FREQUENCY,
          "with --reuse-hot: rank vertices by sampling frequency in the shards or by in-degree",
          HotReuse.FREQUENCY,
          HotReuse.IN_DEGREE);
  public static final OptionDef<String> REUSE_REFRESH =
      OptionDef.choice(
          "reuse-refresh",
          HotReuse.AUTO,
          "with --reuse-hot: compute refreshes on a worker thread with a CPU backend of its own,"
              + " overlapped with training (read a few steps after they start), or inline on the"
              + " training thread and backend (read from the step that starts them); auto:"
              + " inline on a GPU and with --reuse-rows inputs (whose refresh has no product),"
              + " else overlapped",
          HotReuse.AUTO,
          HotReuse.OVERLAPPED,
          HotReuse.INLINE);
  public static final OptionDef<String> REUSE_BACKWARD =
      OptionDef.choice(
          "reuse-backward",
          HotReuse.NO_BACKWARD,
          "with --reuse-hot: how layer 0 gets gradient from the rows a step reuses: none, or"
              + " deferred (their gradient, summed over the steps that read a refresh, goes back"
              + " through layer 0 as that refresh computed it, and the steps reading a later one"
              + " add it in equal parts)",
          HotReuse.NO_BACKWARD,
          HotReuse.DEFERRED);
  public static final OptionDef<String> REUSE_ROWS =
      OptionDef.choice(
          "reuse-rows",
          HotReuse.AUTO,
          "with --reuse-hot: what the cache holds: outputs (layer 0's, computed with parameters up"
              + " to --staleness steps old) or inputs (sage: layer 0's aggregated inputs, which do"
              + " not depend on the parameters, so every step computes the reused rows' products"
              + " itself and passes them the exact gradient); auto: inputs with --model sage,"
              + " outputs with gcn or --reuse-backward deferred",
          HotReuse.AUTO,
          HotReuse.OUTPUTS,
          HotReuse.INPUTS);
  public static final OptionDef<String> DECODER =
      OptionDef.choice(
          "decoder",
          io.fanout.nn.ModelConfig.DOT,
          "link prediction's pair scorer: dot (inner product of the embeddings) or mlp (a"
              + " hidden layer over their elementwise product); node classification takes dot",
          "dot",
          "mlp");
  public static final OptionDef<Integer> LOG_EVERY =
      OptionDef.integer("log-every", 50, "progress line every this many batches (0: per epoch)");

  /** Every option of {@code train}, in help order. */
  public static final List<OptionDef<?>> TRAIN =
      List.of(
          GRAPH,
          SHARDS,
          MODEL_DIR,
          MODEL,
          HIDDEN,
          LAYERS,
          DROPOUT,
          ACTIVATION,
          FEATURE_NORM,
          DECODER,
          LR,
          WEIGHT_DECAY,
          SCHEDULE,
          EPOCHS,
          SEED,
          RESUME,
          VAL_SHARDS,
          LOADER_THREADS,
          PREFETCH,
          FEATURE_CACHE,
          FEATURE_CACHE_BYTES,
          FEATURE_CACHE_IO,
          FEATURE_CACHE_WINDOW,
          REUSE_HOT,
          STALENESS,
          HOT_BY,
          REUSE_REFRESH,
          REUSE_BACKWARD,
          REUSE_ROWS,
          LOG_EVERY,
          BACKEND,
          FEATURE_ACCESS,
          SharedOptions.VERIFY,
          DistOptions.WORKERS,
          DistOptions.TIMEOUT_MS,
          DistOptions.PORT,
          DistOptions.VERIFY);

  /** The training run the resolved options describe. */
  public static TrainSpec spec(FanoutConf c) {
    atLeast(c, EPOCHS, 1);
    atLeast(c, HIDDEN, 1);
    atLeast(c, LAYERS, 0);
    atLeast(c, LOADER_THREADS, 1);
    atLeast(c, PREFETCH, 1);
    atLeast(c, LOG_EVERY, 0);
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
    String cache = featureCache(c);
    if (c.get(REUSE_HOT) > 0
        && cache != null
        && c.get(FEATURE_ACCESS).equals(TrainSpec.ZERO_COPY)) {
      throw new FanoutConfigException(
          "option 'reuse-hot' of train prunes batches whose rows are read by vertex id; it does not"
              + " work with a --feature-cache read in place (--feature-access zero-copy): drop one,"
              + " or use --feature-access gather");
    }
    HotReuse reuse = reuse(c, c.get(MODEL));
    if (reuse.enabled() && reuse.reusesInputs() && !c.get(MODEL).equals("sage")) {
      throw new FanoutConfigException(
          "option 'reuse-rows' of train is inputs, which keeps GraphSAGE's aggregated inputs and"
              + " needs --model sage, got "
              + c.get(MODEL)
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
            c.get(DECODER)),
        new TrainSpec.Optimization(
            c.get(LR).floatValue(),
            c.get(WEIGHT_DECAY).floatValue(),
            c.get(SCHEDULE),
            c.get(EPOCHS),
            c.get(SEED)),
        new TrainSpec.Loading(c.get(LOADER_THREADS), c.get(PREFETCH)),
        new TrainSpec.FeatureSource(
            c.get(FEATURE_ACCESS),
            cache,
            c.get(FEATURE_CACHE_BYTES),
            c.get(FEATURE_CACHE_IO).equals(DIRECT_IO),
            featureCacheWindow(c, cache)),
        reuse,
        new TrainSpec.Device(c.get(BACKEND), -1));
  }

  /**
   * The {@code --feature-cache-window} batches, or {@link RowCacheSizing#AUTO_WINDOW}; refused
   * where it is set and no {@code belady} cache plans.
   */
  static int featureCacheWindow(FanoutConf c, String cache) {
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
    if (batches != RowCacheSizing.DEFAULT_WINDOW_BATCHES && !"belady".equals(cache)) {
      throw new FanoutConfigException(
          "option 'feature-cache-window' of train is "
              + c.raw(FEATURE_CACHE_WINDOW)
              + " but only --feature-cache belady plans a window"
              + (cache == null ? " and no --feature-cache is given" : ", not " + cache)
              + "; add --feature-cache belady or leave the option out");
    }
    return batches;
  }

  /** The reuse settings of a command that trains GraphSAGE (quickstart, bench-train). */
  public static HotReuse reuse(FanoutConf c) {
    return reuse(c, "sage");
  }

  /**
   * The {@code --reuse-hot}, {@code --staleness}, {@code --hot-by}, {@code --reuse-refresh}, {@code
   * --reuse-backward} and {@code --reuse-rows} settings for training {@code model}, which decides
   * what {@code --reuse-rows auto} means ({@link HotReuse#resolveRows}).
   */
  public static HotReuse reuse(FanoutConf c, String model) {
    double f = c.get(REUSE_HOT);
    if (!(f >= 0 && f <= 1)) {
      throw new FanoutConfigException(
          "option 'reuse-hot' of train has value "
              + c.raw(REUSE_HOT)
              + "; expected a fraction of the vertices, 0 <= reuse-hot <= 1");
    }
    int staleness = c.get(STALENESS);
    String hotBy = c.get(HOT_BY);
    String refresh = c.get(REUSE_REFRESH);
    String backward = c.get(REUSE_BACKWARD);
    String rows = HotReuse.resolveRows(c.get(REUSE_ROWS), model, backward);
    try { // each value is valid alone (the options checked them); this refuses a combination
      return new HotReuse(f, staleness, hotBy, refresh, backward, rows);
    } catch (IllegalArgumentException e) {
      throw new FanoutConfigException(e.getMessage());
    }
  }

  /** The {@code --feature-cache} policy, or null when not given (the memory-mapped path). */
  static String featureCache(FanoutConf c) {
    String v = c.get(FEATURE_CACHE).trim().toLowerCase(java.util.Locale.ROOT);
    long bytes = c.get(FEATURE_CACHE_BYTES);
    if (v.isEmpty()) {
      if (c.get(FEATURE_CACHE_IO).equals(DIRECT_IO)) {
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
    return v;
  }

  private static void atLeast(FanoutConf c, OptionDef<Integer> def, int min) {
    if (c.get(def) < min) {
      throw new FanoutConfigException(
          "option '"
              + def.name()
              + "' of train has value "
              + c.raw(def)
              + "; expected "
              + min
              + " or more");
    }
  }
}
