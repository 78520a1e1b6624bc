package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.features.FeatureCacheIo;
import io.fanout.features.RowCacheSizing;
import io.fanout.nn.ActivationKind;
import io.fanout.nn.AttentionConfig;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelKind;
import io.fanout.tensor.BackendKind;
import io.fanout.tensor.MatmulPrecision;
import io.fanout.train.Defaults;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.HotBy;
import io.fanout.train.HotReuse;
import io.fanout.train.ReuseBackward;
import io.fanout.train.ReuseRefresh;
import io.fanout.train.ReuseRows;
import java.util.List;

/** The options of {@code train}; the training commands share them. */
public final class TrainCommandOptions {
  private TrainCommandOptions() {}

  public static final OptionDef<String> GRAPH =
      SharedOptions.GRAPH.withDefault(null, "graph store directory written by bin/fanout prepare");
  public static final OptionDef<String> MODEL_DIR =
      OptionDef.string("model-dir", null, "model directory (checkpoint.bin, metrics.jsonl)");

  public static final OptionDef<String> SHARDS =
      SharedOptions.SHARDS.withDefault(
          null, "training shards directory written by bin/fanout sample");
  public static final OptionDef<ModelKind> MODEL =
      OptionDef.enumeration(
          "model",
          Defaults.MODEL,
          "GNN architecture",
          ModelKind::parse,
          ModelKind.values(),
          ModelKind::id);
  public static final OptionDef<Integer> HIDDEN =
      SharedOptions.HIDDEN.withDefault(String.valueOf(Defaults.HIDDEN), "hidden width");
  public static final OptionDef<Integer> LAYERS =
      OptionDef.integer("layers", 0, "GNN layers; must equal the shards' hops (0: take theirs)");
  public static final OptionDef<Double> DROPOUT =
      SharedOptions.DROPOUT.withDefault(
          String.valueOf(Defaults.DROPOUT), "dropout on every layer's input");
  public static final OptionDef<ActivationKind> ACTIVATION =
      OptionDef.enumeration(
          "activation",
          Defaults.ACTIVATION,
          "activation between layers",
          ActivationKind::parse,
          ActivationKind.values(),
          ActivationKind::id);
  public static final OptionDef<FeatureNormKind> FEATURE_NORM =
      OptionDef.enumeration(
          "feature-norm",
          Defaults.FEATURE_NORM,
          "row normalization of input features",
          FeatureNormKind::parse,
          FeatureNormKind.values(),
          FeatureNormKind::id);
  public static final OptionDef<Double> LR =
      OptionDef.doubleValue("lr", Defaults.LR, "Adam learning rate");
  public static final OptionDef<Double> WEIGHT_DECAY =
      OptionDef.doubleValue(
          "weight-decay", Defaults.WEIGHT_DECAY, "L2 weight decay added to the gradients");
  public static final OptionDef<LrSchedule> SCHEDULE =
      OptionDef.enumeration(
          "schedule",
          Defaults.SCHEDULE,
          "learning rate schedule",
          LrSchedule::parse,
          LrSchedule.values(),
          LrSchedule::id);
  public static final OptionDef<Integer> EPOCHS =
      SharedOptions.EPOCHS.withDefault(String.valueOf(Defaults.EPOCHS), "epochs in total");
  public static final OptionDef<Integer> EARLY_STOP =
      OptionDef.integer(
          "early-stop",
          0,
          "end training once this many epochs in a row bring no better validation score (the one"
              + " best.bin is chosen by); needs validation (0: off)");
  public static final OptionDef<Long> SEED =
      SharedOptions.SEED.withDefault("0", "seeds initialization and dropout");
  public static final OptionDef<Boolean> RESUME =
      OptionDef.bool("resume", false, "continue from the model dir's last complete checkpoint");
  public static final OptionDef<Boolean> OVERWRITE =
      SharedOptions.OVERWRITE.withDefault(
          "false", "train afresh over a model dir holding another run (--if-exists overwrite)");
  public static final OptionDef<String> VAL_SHARDS =
      OptionDef.string("val-shards", "", "validation shards, evaluated after every epoch");
  public static final OptionDef<Integer> LOADER_THREADS =
      SharedOptions.LOADER_THREADS.withDefault(
          "2", "background threads reading and decoding shards");
  public static final OptionDef<Integer> PREFETCH =
      SharedOptions.PREFETCH.withDefault("2", "batches each loader thread keeps ready");
  public static final OptionDef<String> FEATURE_CACHE =
      OptionDef.string(
          "feature-cache",
          "",
          "keep features on disk behind a row cache of --feature-cache-bytes (belady|lru|none);"
              + " not given: read the memory-mapped store");

  public static final OptionDef<Long> FEATURE_CACHE_BYTES =
      OptionDef.longValue(
          "feature-cache-bytes", 0, "bytes of feature rows --feature-cache may hold in memory");
  public static final OptionDef<FeatureCacheIo> FEATURE_CACHE_IO =
      OptionDef.enumeration(
          "feature-cache-io",
          FeatureCacheIo.BUFFERED,
          "how --feature-cache reads rows from disk: buffered (through the kernel's page cache) or"
              + " direct (O_DIRECT: every miss goes to the device; the file system must support it)",
          FeatureCacheIo::parse,
          FeatureCacheIo.values(),
          FeatureCacheIo::id);
  public static final OptionDef<String> FEATURE_CACHE_WINDOW =
      OptionDef.string(
          "feature-cache-window",
          Integer.toString(RowCacheSizing.DEFAULT_WINDOW_BATCHES),
          "batches --feature-cache belady plans ahead at a time (a superbatch), 1-"
              + RowCacheSizing.MAX_WINDOW_BATCHES
              + "; auto: at least 32, growing with the cache to 16 cache sizes of rows (small"
              + " batches plan closer to the optimum, for up to the cache's bytes of heap)");
  public static final OptionDef<BackendKind> BACKEND =
      OptionDef.enumeration(
          "backend",
          BackendKind.AUTO,
          "tensor backend: auto takes cuda when a usable GPU is visible, else cpu (saying why);"
              + " cuda fails without one; cpu-checked is the CPU in checking mode",
          BackendKind::parse,
          BackendKind.values(),
          BackendKind::id);
  public static final OptionDef<MatmulPrecision> PRECISION =
      OptionDef.enumeration(
          "precision",
          MatmulPrecision.FP32,
          "arithmetic of the dense products: fp32, or, on cuda with cuBLAS, tf32 or bf16 (the"
              + " operands rounded for the tensor cores, accumulated in fp32; recorded in the"
              + " checkpoint, so a run resumes only with the precision it started with)",
          MatmulPrecision::parse,
          MatmulPrecision.values(),
          MatmulPrecision::id);
  public static final OptionDef<FeatureAccessMode> FEATURE_ACCESS =
      OptionDef.enumeration(
          "feature-access",
          Defaults.FEATURE_ACCESS,
          "how a step gets its input features: gather (rows gathered on the host, then"
              + " uploaded), zero-copy (only node ids go up; the backend reads the rows from the"
              + " mapped store, decoding quantized rows itself), device (as zero-copy, from the"
              + " encoded rows copied once into device memory; no --feature-cache) or auto (device"
              + " when the rows take at most half the free device memory, else zero-copy, else"
              + " gather; gather on the CPU backends). zero-copy and device need node-id-only"
              + " shards; the backend applies --feature-norm to the rows it reads",
          FeatureAccessMode::parse,
          FeatureAccessMode.values(),
          FeatureAccessMode::id);
  public static final OptionDef<Double> REUSE_HOT =
      OptionDef.doubleValue(
          "reuse-hot",
          0.0,
          "fraction of the vertices whose bottom-layer embeddings are computed by a refresh"
              + " worker and reused by batches (0: off)");
  public static final OptionDef<Integer> STALENESS =
      OptionDef.of(
          "staleness",
          HotReuse.stalenessName(HotReuse.AUTO_STALENESS),
          "with --reuse-hot: the most steps a reused embedding may be old, or auto (a twelfth of"
              + " an epoch's steps, at least 1)",
          HotReuse::parseStaleness);
  public static final OptionDef<HotBy> HOT_BY =
      OptionDef.enumeration(
          "hot-by",
          HotBy.FREQUENCY,
          "with --reuse-hot: rank vertices by sampling frequency in the shards or by in-degree",
          HotBy::parse,
          HotBy.values(),
          HotBy::id);
  public static final OptionDef<ReuseRefresh> REUSE_REFRESH =
      OptionDef.enumeration(
          "reuse-refresh",
          ReuseRefresh.AUTO,
          "with --reuse-hot: compute refreshes on a worker thread with a CPU backend of its own,"
              + " overlapped with training (read a few steps after they start), or inline on the"
              + " training thread and backend (read from the step that starts them); auto:"
              + " inline on a GPU and with --reuse-rows inputs (whose refresh has no product),"
              + " else overlapped",
          ReuseRefresh::parse,
          ReuseRefresh.values(),
          ReuseRefresh::id);
  public static final OptionDef<ReuseBackward> REUSE_BACKWARD =
      OptionDef.enumeration(
          "reuse-backward",
          ReuseBackward.NONE,
          "with --reuse-hot: how layer 0 gets gradient from the rows a step reuses: none, or"
              + " deferred (their gradient, summed over the steps that read a refresh, goes back"
              + " through layer 0 as that refresh computed it, and the steps reading a later one"
              + " add it in equal parts)",
          ReuseBackward::parse,
          ReuseBackward.values(),
          ReuseBackward::id);
  public static final OptionDef<ReuseRows> REUSE_ROWS =
      OptionDef.enumeration(
          "reuse-rows",
          ReuseRows.AUTO,
          "with --reuse-hot: what the cache holds: outputs (layer 0's, computed with parameters up"
              + " to --staleness steps old) or inputs (sage: layer 0's aggregated inputs, which do"
              + " not depend on the parameters, so every step computes the reused rows' products"
              + " itself and passes them the exact gradient); auto: inputs with --model sage,"
              + " outputs with gcn or --reuse-backward deferred",
          ReuseRows::parse,
          ReuseRows.values(),
          ReuseRows::id);
  public static final OptionDef<DecoderKind> DECODER =
      OptionDef.enumeration(
          "decoder",
          DecoderKind.DOT,
          "link prediction's pair scorer: dot (inner product of the embeddings) or mlp (a"
              + " hidden layer over their elementwise product); node classification takes dot",
          DecoderKind::parse,
          DecoderKind.values(),
          DecoderKind::id);
  public static final OptionDef<Integer> HEADS =
      OptionDef.integer(
          "heads",
          AttentionConfig.DEFAULT.heads(),
          "--model gat: attention heads of every hidden layer, which split --hidden between them"
              + " (concatenated); the output layer has --out-heads. --model hgn: heads of --hidden"
              + " each (default 8)");
  public static final OptionDef<Double> ATTN_SLOPE =
      OptionDef.doubleValue(
          "attn-slope",
          0.2,
          "--model gat: negative slope of the LeakyReLU on the attention scores (--model hgn:"
              + " default 0.05)");
  public static final OptionDef<Double> ATTN_DROPOUT =
      OptionDef.doubleValue(
          "attn-dropout",
          0.6,
          "--model gat: dropout on the attention weights in training (each edge and head;"
              + " --model hgn: default 0.5)");
  public static final OptionDef<Double> ATTN_RESIDUAL =
      OptionDef.doubleValue(
          "attn-residual",
          Double.parseDouble(Float.toString(io.fanout.nn.typed.HgnSettings.DEFAULT.attnResidual())),
          "--model hgn: Simple-HGN's edge residual beta in [0, 1): every hidden layer after the"
              + " first aggregates with (1 - beta) times its attention weights plus beta times the"
              + " previous layer's weights of the same edges (0: off; acts from 3 layers on)");
  public static final OptionDef<Integer> INPUT_WIDTH =
      OptionDef.integer(
          "input-width",
          io.fanout.nn.typed.HgnSettings.DEFAULT.inputWidth(),
          "--model hgn: width of the per-type input projections and learned embedding rows, the"
              + " first layer's input (0: --hidden, one head's width, as HGB)");
  public static final OptionDef<Integer> OUT_HEADS =
      OptionDef.integer(
          "out-heads",
          AttentionConfig.DEFAULT.outputHeads(),
          "--model gat: attention heads of the output layer, each of the full output width,"
              + " averaged");
  public static final OptionDef<io.fanout.nn.GatResidual> GAT_RESIDUAL =
      OptionDef.enumeration(
          "gat-residual",
          AttentionConfig.DEFAULT.residual(),
          "--model gat: every layer adds the node's own input times a weight of its own to the"
              + " attention over its neighbors (as GraphSAGE's self term): on, off, or auto (on"
              + " where the training split has at least "
              + io.fanout.nn.GatResidual.AUTO_SEEDS_PER_CLASS
              + " seeds per class)",
          io.fanout.nn.GatResidual::parse,
          io.fanout.nn.GatResidual.values(),
          io.fanout.nn.GatResidual::id);
  public static final OptionDef<io.fanout.nn.EmbeddingMode> LEARNED_EMBEDDINGS =
      OptionDef.enumeration(
          "learned-embeddings",
          io.fanout.nn.EmbeddingMode.AUTO,
          "which vertices learn one vector of --hidden floats each instead of reading features:"
              + " auto (a one-type store without features; on typed stores the types without"
              + " features), all (every vertex, its features unused), non-target (every type but"
              + " the task's own: the target type, or the link relation's two end types), off (a"
              + " store or type without features is refused)",
          io.fanout.nn.EmbeddingMode::parse,
          io.fanout.nn.EmbeddingMode.values(),
          io.fanout.nn.EmbeddingMode::id);
  public static final OptionDef<Integer> BASES =
      OptionDef.integer(
          "bases",
          0,
          "--model rgcn: relation weights as combinations of this many shared bases (0: one full"
              + " weight per relation)");
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
          HEADS,
          ATTN_SLOPE,
          ATTN_DROPOUT,
          ATTN_RESIDUAL,
          INPUT_WIDTH,
          OUT_HEADS,
          GAT_RESIDUAL,
          LEARNED_EMBEDDINGS,
          BASES,
          LR,
          WEIGHT_DECAY,
          SCHEDULE,
          EPOCHS,
          EARLY_STOP,
          SEED,
          RESUME,
          OVERWRITE,
          SharedOptions.IF_EXISTS,
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
          PRECISION,
          FEATURE_ACCESS,
          SharedOptions.VERIFY,
          DistOptions.WORKERS,
          DistOptions.TIMEOUT_MS,
          DistOptions.PORT,
          DistOptions.VERIFY);
}
