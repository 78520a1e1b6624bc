package io.fanout.train;

import io.fanout.features.CachePolicy;
import io.fanout.features.RowCacheSizing;
import io.fanout.nn.GnnModel;
import io.fanout.nn.ModelConfig;
import io.fanout.shard.ShardManifest;
import io.fanout.store.StoreManifest;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The Java heap a training run holds at once, at the least, from the sizes known before it starts
 * (the shard manifest, the feature dimension and the model's parameter count), and the messages for
 * a run that does not fit.
 *
 * <p>The bound counts the parameters with their gradients and both Adam moments, and the feature
 * rows of the batches the loaders keep ready: {@code min(loader-threads, parts) x (prefetch + 1)}
 * buffers of a mean batch's nodes, for the current epoch and, when another follows, for the next
 * one, whose loader starts with the current epoch (none with {@code --feature-access zero-copy}:
 * the backend reads the rows itself), and the rows of a feature cache ({@code
 * --feature-cache-bytes}) where its pages are on the heap (not the pinned pages of a GPU), and the
 * cache's own bookkeeping wherever its pages are: per slot, per batch row and, for {@code belady},
 * per access of the longest planned window of mean batches ({@link PlanWindow#maxAccesses}, {@link
 * RowCacheSizing#heapBesideRows}). Activations and everything else come on top: a run over the
 * bound cannot fit; one under it may still run out.
 */
public final class TrainMemory {
  private final TrainSpec spec;
  private final int dim;
  private final ShardManifest shards;
  private final long nodesPerBatch;
  private final long readyBatches;
  private final boolean cacheOnHeap;
  private final long vertices;
  private final int rowBytes;

  /** What the bound needs of the graph store: its vertices and feature rows. */
  record Store(long vertices, int dim, int rowBytes) {
    /** A store of {@code vertices} float32 rows of {@code dim} features. */
    static Store f32(long vertices, int dim) {
      return new Store(vertices, dim, 4 * dim);
    }
  }

  /**
   * @param retry whether a checkpoint may be continued even without {@code spec.output().resume()}
   */
  TrainMemory(TrainSpec spec, Store store, ShardManifest shards, boolean retry) {
    this(spec, store, shards, retry, true);
  }

  /** As above; {@code cacheOnHeap}: whether the feature cache's pages take heap. */
  TrainMemory(
      TrainSpec spec, Store store, ShardManifest shards, boolean retry, boolean cacheOnHeap) {
    this.cacheOnHeap = cacheOnHeap;
    this.spec = spec;
    this.dim = store.dim();
    this.vertices = store.vertices();
    this.rowBytes = store.rowBytes();
    this.shards = shards;
    this.nodesPerBatch = nodesPerBatch(shards);
    this.readyBatches =
        readyBatches(
            spec.loading().loaderThreads(),
            spec.loading().prefetch(),
            shards,
            spec.optimization().epochs(),
            spec.output().resume() || retry);
  }

  /**
   * The batches the loaders keep ready at once: {@code min(loaderThreads, parts) x (prefetch + 1)},
   * at most an epoch's, for the current epoch and, when another follows, for the next one, whose
   * loader starts with the current epoch.
   *
   * @param resumed whether the run continues a checkpoint: it may have one epoch left, and so one
   *     loader
   */
  public static long readyBatches(
      int loaderThreads, int prefetch, ShardManifest shards, int epochs, boolean resumed) {
    long threads = Math.max(1, Math.min(loaderThreads, shards.partsPerEpoch));
    long perLoader =
        Math.min(threads * (Math.max(1, prefetch) + 1), Math.max(1, shards.batchesPerEpoch));
    boolean twoEpochs = epochs > 1 && !resumed;
    return perLoader * (twoEpochs ? 2 : 1);
  }

  /** The nodes of a mean batch of {@code shards}, rounded up. */
  public static long nodesPerBatch(ShardManifest shards) {
    long batches = Math.max(1, shards.totals.batches);
    return (shards.totals.nodes + batches - 1) / batches;
  }

  /**
   * The heap of a learned embedding table of {@code rows x dim} floats: its values and both sparse
   * Adam moments.
   */
  public static long learnedTableBytes(long rows, int dim) {
    return 12L * rows * dim;
  }

  /** The heap of {@code numParams} dense parameters with their gradients and both Adam moments. */
  public static long denseBytes(long numParams) {
    return 16L * numParams;
  }

  /**
   * Refuses a run whose {@code need} bytes of heap, at the least, exceed {@code maxHeap} ({@code
   * Runtime.maxMemory()} where it runs): the one limit of every train check.
   *
   * @param madeOf what {@code need} is made of, for the message
   * @param change the options to change, for the message
   * @throws OutOfHeapException naming both figures, {@code madeOf} and {@code change}
   */
  public static void refuseOver(long need, long maxHeap, Supplier<String> madeOf, String change) {
    if (need <= maxHeap) {
      return;
    }
    throw new OutOfHeapException(
        String.format(
            Locale.ROOT,
            "train needs at least %s of Java heap but has %s (max heap): %s; %s",
            size(need),
            size(maxHeap),
            madeOf.get(),
            change),
        null);
  }

  /** The figures of {@code spec}'s run, read again from its manifests (for an error message). */
  static TrainMemory of(TrainSpec spec, boolean retry) {
    StoreManifest m = StoreManifest.read(spec.inputs().graph());
    return new TrainMemory(
        spec,
        Store.f32(m.vertices, m.featureDim),
        ShardSet.open(spec.inputs().shards()).manifest(),
        retry);
  }

  /** Bytes the run holds at once at the least; see the class comment. */
  long leastBytes(int numParams) {
    long ready = spec.features().readsInPlace() ? 0 : readyBatches * nodesPerBatch * dim;
    return 4L * (4L * numParams + ready) + cacheBytes();
  }

  /**
   * The heap bytes of the feature cache ({@code --feature-cache}): its rows where its pages are on
   * the heap, and its bookkeeping; 0 without a cache.
   */
  private long cacheBytes() {
    if (spec.features().cache() == null) {
      return 0;
    }
    CachePolicy p = spec.features().cache();
    long slots = RowCacheSizing.capacityRows(p, spec.features().cacheBytes(), rowBytes, vertices);
    return (cacheOnHeap ? slots * rowBytes : 0)
        + RowCacheSizing.heapBesideRows(
            p,
            slots,
            rowBytes,
            vertices,
            nodesPerBatch,
            new PlanWindow(p, slots, rowBytes, spec.features().cacheWindow())
                .maxAccesses(nodesPerBatch));
  }

  /**
   * Refuses the run when {@link #leastBytes} exceeds {@code maxHeap} ({@code Runtime.maxMemory()}
   * where it runs).
   *
   * @throws OutOfHeapException naming both figures, what they are made of and what to change
   */
  void check(int numParams, long maxHeap) {
    long need = leastBytes(numParams);
    refuseOver(
        need,
        maxHeap,
        () ->
            String.format(
                Locale.ROOT,
                "the loaders keep %d batches ready, each of about %,d nodes x %d features (%s), and"
                    + " the model holds %,d parameters with their gradients and Adam moments%s",
                readyBatches,
                nodesPerBatch,
                dim,
                batches(),
                numParams,
                cacheBytes() == 0
                    ? ""
                    : ", plus "
                        + size(cacheBytes())
                        + " for the feature cache (--feature-cache-bytes "
                        + spec.features().cacheBytes()
                        + " and its bookkeeping)"),
        advice(Math.max(need + need / 2, maxHeap + 1)));
  }

  /**
   * Refuses, before the model is built, a model whose parameters cannot be held: more than one
   * array takes ({@link GnnModel#MAX_PARAMS}), or, with their gradients and both Adam moments, more
   * than {@code maxHeap}.
   *
   * @throws OutOfHeapException naming the count, the options that make it and what to change
   */
  static void checkModel(ModelConfig cfg, long maxHeap) {
    if (cfg.learnedInput()) {
      // values and two sparse Adam moments per element, on the heap
      long table = learnedTableBytes(cfg.embeddingRows(), cfg.inDim());
      long dense = denseBytes(GnnModel.paramCount(cfg));
      if (table + dense > maxHeap) {
        throw new OutOfHeapException(
            String.format(
                    Locale.ROOT,
                    "train: the learned embedding table (--learned-embeddings) of %,d vertices x"
                        + " %d floats (--hidden), with its Adam moments, needs ",
                    cfg.embeddingRows(),
                    cfg.inDim())
                + size(table)
                + " of Java heap, the model "
                + size(dense)
                + ", more than the "
                + size(maxHeap)
                + " there is (max heap); choose a smaller --hidden, or "
                + OutOfHeapException.moreHeap(table + dense + (table + dense) / 2),
            null);
      }
    }
    long numParams = GnnModel.paramCount(cfg);
    long need = denseBytes(numParams);
    if (numParams <= GnnModel.MAX_PARAMS && need <= maxHeap) {
      return;
    }
    String model =
        String.format(
            Locale.ROOT,
            "train: a %s model of hidden width %d (--hidden) and %d layers has %,d parameters",
            cfg.kind().id(),
            cfg.hidden(),
            cfg.layers(),
            numParams);
    throw new OutOfHeapException(
        numParams > GnnModel.MAX_PARAMS
            ? String.format(
                Locale.ROOT,
                "%s, more than the %,d a model can hold; choose a smaller --hidden",
                model,
                GnnModel.MAX_PARAMS)
            : model
                + ", which with their gradients and Adam moments need "
                + size(need)
                + " of Java heap, more than the "
                + size(maxHeap)
                + " there is (max heap); choose a smaller --hidden, or "
                + OutOfHeapException.moreHeap(need + need / 2),
        null);
  }

  /** The error for a run that ran out of heap with {@code oom}. */
  OutOfHeapException ranOut(OutOfMemoryError oom, long maxHeap) {
    return new OutOfHeapException(
        String.format(
            Locale.ROOT,
            "train ran out of Java heap (max heap %s) with batches of about %,d nodes x %d"
                + " features (%s) and a %s model of hidden width %d%s; %s",
            size(maxHeap),
            nodesPerBatch,
            dim,
            batches(),
            spec.architecture().model().id(),
            spec.architecture().hidden(),
            reuseHeld(),
            advice(2 * maxHeap)),
        oom);
  }

  /**
   * What {@code --reuse-hot} holds beside the bound, for the messages: up to {@code fraction x
   * vertices} hot vertices, each with its feature row in the hot block and its cached row twice
   * (the one in use and the one the next refresh lands in: an embedding, or with {@code
   * --reuse-rows inputs} an aggregated input of twice the feature width); empty without reuse. Not
   * in {@link #leastBytes}: the hot set can be smaller (only vertices sampled in epoch 0 qualify),
   * and it is known only once training has read epoch 0.
   */
  private String reuseHeld() {
    HotReuse r = spec.reuse();
    if (r == null || !r.enabled()) {
      return "";
    }
    long hot = Math.round(r.fraction() * vertices);
    long cachedRow = r.reusesInputs() ? 2L * dim : spec.architecture().hidden();
    long bytes = hot * (4L * dim + 2L * 4L * cachedRow);
    return String.format(
        Locale.ROOT,
        ", and --reuse-hot %s keeps up to %,d hot vertices' feature rows and embeddings (up to %s;"
            + " a smaller --reuse-hot needs less)",
        r.fraction(),
        hot,
        size(bytes));
  }

  /**
   * The OutOfMemoryError in {@code t}'s cause chain (a loader thread's arrives wrapped), or null.
   */
  static OutOfMemoryError find(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof OutOfMemoryError e) {
        return e;
      }
    }
    return null;
  }

  private String batches() {
    StringBuilder f = new StringBuilder();
    for (int i = 0; shards.fanouts != null && i < shards.fanouts.length; i++) {
      f.append(i == 0 ? "" : ",").append(shards.fanouts[i]);
    }
    return "batches of "
        + shards.batchSize
        + " seeds, fanouts "
        + f
        + ", in the shards at "
        + spec.inputs().shards();
  }

  private String advice(long heap) {
    return OutOfHeapException.moreHeap(heap)
        + ", sample smaller batches (bin/fanout sample --batch-size "
        + Math.max(1, shards.batchSize / 2)
        + ") or keep fewer batches ready (--loader-threads, --prefetch)";
  }

  private static String size(long bytes) {
    return OutOfHeapException.size(bytes);
  }
}
