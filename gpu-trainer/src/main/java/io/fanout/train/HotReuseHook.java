package io.fanout.train;

import io.fanout.nn.BatchTensors;
import io.fanout.nn.GnnModel;
import io.fanout.nn.ReusedRows;
import io.fanout.tensor.Backend;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TensorBufs;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntToLongFunction;

/**
 * Reuse of hot vertices' bottom-layer embeddings ({@link HotReuse}) as a {@link StepHook}: selects
 * the hot set from epoch 0 of the training data, keeps its embeddings fresh ({@link HotRefresh}),
 * prunes each batch for the hot rows (in its loader, or here after the gather) and counts what
 * reuse avoided.
 */
final class HotReuseHook implements StepHook {
  private final GnnModel model;
  private final Backend be;
  private final HotReuse reuse;
  private final int numVertices;
  private final IntToLongFunction inDegree;
  private final long seed;
  private HotSet hotSet;
  private HotRefresh refresh;
  private FloatTensor hot; // the coming step's reused rows, or null
  private final HotPruner pruner = new HotPruner();
  private float[] compacted; // features of a batch pruned here (not by its loader)
  private long bottomRows;
  private long bottomEdges;
  private long bottomSources;
  private long rowsAvoided;
  private long edgesAvoided;
  private long sourcesAvoided;

  /**
   * @param numVertices vertices of the graph
   * @param inDegree in-degree of a vertex, for {@link HotBy#IN_DEGREE} (may be null otherwise)
   * @param seed the run's seed
   */
  HotReuseHook(
      GnnModel model, HotReuse reuse, int numVertices, IntToLongFunction inDegree, long seed) {
    this.model = model;
    this.be = model.backend();
    this.reuse = Objects.requireNonNull(reuse, "reuse");
    this.numVertices = numVertices;
    this.inDegree = inDegree;
    this.seed = seed;
    if (reuse.hotBy() == HotBy.IN_DEGREE && inDegree == null) {
      throw new IllegalArgumentException("hot-by in-degree needs the graph's in-degrees");
    }
  }

  /** Reuse is only in the identity when on, so existing checkpoints keep theirs. */
  @Override
  public void addIdentity(Map<String, String> meta) {
    if (reuse.enabled()) {
      reuse.toMap().forEach((k, v) -> meta.put("identity.train." + k, v));
      // auto's schedule depends on the backend and the rows; the checkpoint records what it was
      meta.put(
          "identity.train.reuse_refresh",
          (reuse.inlineOn(be) ? ReuseRefresh.INLINE : ReuseRefresh.OVERLAPPED).id());
    }
  }

  /**
   * Selects the hot set from epoch 0 of {@code data} and starts the refresh worker (a no-op without
   * reuse or when already prepared); rows of batches without features are read through {@code
   * featureRows}.
   */
  @Override
  public void beforeFit(EpochData data, FeatureRows featureRows) {
    if (!reuse.enabled() || hotSet != null) {
      return;
    }
    hotSet =
        HotSet.build(
            data,
            reuse,
            numVertices,
            inDegree,
            (ids, n, out) -> readRows(featureRows, ids, n, out));
    if (hotSet.size() > 0) {
      refresh = new HotRefresh(model, hotSet, reuse.resolve(hotSet.epochBatches()), seed);
      if (refresh.inputs()) {
        model.allowSparseInput(false);
      }
    }
  }

  /**
   * The input rows of {@code ids[0 .. n)} read through the feature rows on the backend, for a hot
   * set whose batches come without features; a chunk at a time, so the backend holds little at
   * once.
   */
  private void readRows(FeatureRows featureRows, int[] ids, int n, float[] out) {
    if (featureRows == null) {
      throw new IllegalStateException(
          "batches came without features and no feature rows were given");
    }
    int dim = featureRows.dim();
    int chunk = Math.max(1, Math.min(n, (16 << 20) / Math.max(1, dim)));
    IntTensor idT = null;
    FloatTensor rowT = null;
    try {
      idT = be.allocInt(chunk);
      rowT = be.allocFloat(chunk * dim);
      for (int from = 0; from < n; from += chunk) {
        int rows = Math.min(chunk, n - from);
        be.upload(ids, from, idT, 0, rows);
        featureRows.gather(idT, 0, rows, rowT, 0);
        be.download(rowT, 0, out, from * dim, rows * dim);
      }
    } finally {
      TensorBufs.free(be, rowT);
      TensorBufs.free(be, idT);
    }
  }

  /** Stops the refresh worker and drops the hot set. */
  @Override
  public void afterFit() {
    if (refresh != null) {
      refresh.close();
      refresh = null;
    }
    hotSet = null;
    hot = null;
  }

  /**
   * With reuse on (after {@link #beforeFit}), the epoch's loader prunes each batch for the hot rows
   * before gathering its features; otherwise as {@link EpochData#open(int)}.
   */
  @Override
  public BatchStream open(EpochData data, int epoch) {
    return refresh == null ? data.open(epoch) : data.open(epoch, null, hotSet);
  }

  @Override
  public void beforeStep(long step, GnnModel m) {
    hot = refresh == null ? null : refresh.beforeStep(step, m);
  }

  @Override
  public HotSet stepHotSet() {
    return hot == null ? null : hotSet;
  }

  /**
   * Layer 0 runs on the batch's bottom block pruned for the hot rows (by its loader, or here),
   * whose layer-0 embeddings come from the refresh (indexed by the {@link HotSet}'s slots); they
   * pass no gradient but through the refresh's deferred backward when it has one.
   */
  @Override
  public BatchTensors upload(
      TrainBatch b, FeatureRows featureRows, int[] labels, int rows, ReusedRows reused) {
    if (hot == null) {
      return null;
    }
    if (b.slots() != null) {
      throw new IllegalStateException(
          "batch "
              + b.batch().batch()
              + " reads its rows from a feature cache's slots, which hot-embedding reuse does not"
              + " prune");
    }
    BatchTensors t;
    if (b.features() != null || featureRows != null) {
      HotPruner p = prunedBy(b);
      if (!p.active()) {
        t = Trainer.upload(model, featureRows, b, labels, rows);
      } else if (b.features() == null) {
        // zero-copy: the backend reads the rows of the pruned block's sources only
        p.describe(reused, hot);
        t = model.upload(p.blocks(), p.keptNodes(), featureRows, labels, rows);
      } else {
        p.describe(reused, hot);
        float[] x = b.features();
        if (p == pruner) { // pruned here, after the gather: keep the pruned block's rows
          compacted = pruner.compact(x, b.dim(), compacted);
          x = compacted;
        }
        t = model.upload(p.blocks(), x, labels, rows);
      }
    } else {
      t = Trainer.upload(model, featureRows, b, labels, rows);
    }
    reused.inputs(refresh.inputs());
    reused.gradientSink(refresh.gradientSink());
    return t;
  }

  /** With a deferred backward, this step's share of layer 0's gradient from reused rows. */
  @Override
  public void afterBackward() {
    if (hot != null) {
      refresh.addDeferredGradient(model.gradTensor());
    }
  }

  /**
   * The pruner that pruned {@code b} for the hot set in use: its loader's, or this hook's after
   * pruning it here; its counts are added to the reuse stats.
   */
  private HotPruner prunedBy(TrainBatch b) {
    HotPruner p = b.prunedFor != null && b.prunedFor == hotSet ? b.pruner : pruner;
    if (p == pruner) {
      pruner.prune(b.batch(), hotSet.slotOf());
    }
    bottomRows += p.bottomRows;
    bottomEdges += p.bottomEdges;
    bottomSources += p.bottomSources;
    rowsAvoided += p.rowsAvoided;
    edgesAvoided += p.edgesAvoided;
    sourcesAvoided += p.sourcesAvoided;
    return p;
  }

  /** The hot set in use, or null without reuse (or before {@link #beforeFit}). */
  HotSet hotSet() {
    return hotSet;
  }

  /** See {@link Trainer#reuseStats}. */
  Map<String, Object> stats() {
    Map<String, Object> m = new LinkedHashMap<>();
    if (refresh == null) {
      return m;
    }
    m.put("hot_vertices", hotSet.size());
    m.put("bottom_rows", bottomRows);
    m.put("bottom_edges", bottomEdges);
    m.put("feature_rows", bottomSources);
    m.put("bottom_rows_avoided", rowsAvoided);
    m.put("bottom_edges_avoided", edgesAvoided);
    m.put("feature_rows_avoided", sourcesAvoided);
    m.put("bottom_rows_avoided_fraction", ratio(rowsAvoided, bottomRows));
    m.put("bottom_edges_avoided_fraction", ratio(edgesAvoided, bottomEdges));
    m.put("feature_rows_avoided_fraction", ratio(sourcesAvoided, bottomSources));
    m.put("reuse_refresh", (refresh.inline() ? ReuseRefresh.INLINE : ReuseRefresh.OVERLAPPED).id());
    m.put("reuse_backward", reuse.backward().id());
    m.put("reuse_rows", reuse.rows().id());
    m.put("staleness_steps", refresh.staleness());
    m.put("refreshes", refresh.refreshes());
    m.put("refresh_seconds", refresh.refreshSeconds());
    m.put("refresh_wait_seconds", refresh.waitSeconds());
    m.put("max_embedding_age_steps", refresh.maxAge());
    return m;
  }

  private static double ratio(long a, long b) {
    return b == 0 ? 0 : a / (double) b;
  }

  /** The oldest reused embedding any step has read, in steps (-1: none). */
  int maxAge() {
    return refresh == null ? -1 : refresh.maxAge();
  }
}
