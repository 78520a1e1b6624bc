package io.fanout.train;

import io.fanout.graph.FeatureTable;
import io.fanout.nn.FeatureNormKind;
import io.fanout.sample.MiniBatch;
import io.fanout.store.InvalidInputException;

/**
 * Fills the batches of a {@link PipelinedLoader} that do not go through its row cache's gather
 * thread: one decoded batch into one reusable {@link TrainBatch}, the same way whichever thread
 * calls it. Holds no state of its own besides the loader's settings.
 */
final class BatchFiller {
  private final FeatureTable table;
  private final int dim;
  private final FeatureNormKind norm;
  private final boolean cached;
  private final boolean gather;
  private final HotSet hot;

  /**
   * @param table the feature source (the cache itself when {@code cached}), or null
   * @param cached whether a row cache gathers the batches without inline features
   * @param hot the hot set to prune for, or null
   */
  BatchFiller(
      FeatureTable table,
      int dim,
      FeatureNormKind norm,
      boolean cached,
      boolean gather,
      HotSet hot) {
    this.table = table;
    this.dim = dim;
    this.norm = norm;
    this.cached = cached;
    this.gather = gather;
    this.hot = hot;
  }

  /**
   * Prunes {@code b} for the hot set into {@code tb}'s pruner; returns whether it found hot rows.
   */
  private boolean prune(TrainBatch tb, MiniBatch b) {
    if (tb.pruner == null) {
      tb.pruner = new HotPruner();
    }
    tb.prunedFor = hot;
    return tb.pruner.prune(b, hot.slotOf());
  }

  /**
   * Grows {@code tb}'s feature buffer to {@code rows x dim} floats and returns that count.
   *
   * @param what the batch, for the message when it needs more than 2^31 floats
   */
  int ensureFeatures(TrainBatch tb, int rows, String what) {
    long need = (long) rows * dim;
    if (need > Integer.MAX_VALUE - 8) {
      throw new InvalidInputException(what + " needs " + need + " feature floats, over 2^31");
    }
    if (tb.features == null || tb.features.length < need) {
      tb.features = new float[(int) need];
    }
    return (int) need;
  }

  /**
   * Fills {@code tb} from decoded batch {@code d} of {@code part}: checks its node ids against the
   * feature table, then (as the loader is set up) leaves the rows to the cache, prunes only, or
   * gathers or copies, prunes and normalizes its feature rows.
   */
  void fill(TrainBatch tb, DecodedBatch d, PartPipeline.Part<?> part) {
    MiniBatch b = d.batch();
    int rows = b.nodes().length;
    if (table != null) {
      int nv = table.numVertices();
      for (int v : b.nodes()) {
        if (v < 0 || v >= nv) {
          throw new InvalidInputException(
              part.name()
                  + ": batch "
                  + b.batch()
                  + " has node id "
                  + v
                  + " but the graph store has "
                  + nv
                  + " vertices; the shards were sampled from another graph store");
        }
      }
    }
    if (cached && d.features() == null) {
      tb.batch = b;
      tb.dim = dim;
      return;
    }
    if (!gather) {
      if (d.features() != null) {
        throw new InvalidInputException(
            part.name()
                + ": batch "
                + b.batch()
                + " inlines its features; --feature-access zero-copy reads node-id-only shards"
                + " (sample without inline features), or use --feature-access gather");
      }
      tb.features = null;
      tb.batch = b;
      tb.dim = dim;
      tb.prunedFor = null;
      if (hot != null) {
        prune(tb, b);
      }
      return;
    }
    tb.prunedFor = null;
    if (d.features() != null) {
      long inline = (long) rows * dim;
      if (d.features().length != inline) {
        throw new InvalidInputException(
            part.name()
                + ": batch "
                + b.batch()
                + " inlines "
                + d.features().length
                + " feature values for "
                + rows
                + " nodes; expected "
                + inline
                + " (feature dimension "
                + dim
                + ")");
      }
    } else if (table == null) {
      throw new InvalidInputException(
          part.name() + ": shards hold node ids only and no feature table was given");
    }
    if (hot != null && prune(tb, b)) {
      int kept = tb.pruner.kept();
      ensureFeatures(tb, kept, part.name() + ": batch " + b.batch());
      if (d.features() != null) {
        tb.features = tb.pruner.compact(d.features(), dim, tb.features);
      } else {
        table.gather(tb.pruner.keptNodes(), 0, kept, tb.features, 0);
      }
      FeatureNorm.apply(norm, tb.features, kept, dim);
      tb.batch = b;
      tb.dim = dim;
      return;
    }
    int need = ensureFeatures(tb, rows, part.name() + ": batch " + b.batch());
    if (d.features() != null) {
      System.arraycopy(d.features(), 0, tb.features, 0, need);
    } else {
      table.gather(b.nodes(), 0, rows, tb.features, 0);
    }
    FeatureNorm.apply(norm, tb.features, rows, dim);
    tb.batch = b;
    tb.dim = dim;
  }
}
