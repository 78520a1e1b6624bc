package io.fanout.train.typed;

import io.fanout.features.CachePolicy;
import io.fanout.features.RowCacheSizing;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.shard.ShardManifest;
import io.fanout.store.FeatureParams;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.OutOfHeapException;
import io.fanout.train.TrainMemory;
import io.fanout.train.TrainSpec;
import java.util.Locale;

/**
 * The Java heap a typed training run holds at once, at the least, from the sizes known before it
 * starts, with {@link TrainMemory}'s figures and limit: the rows of the typed feature caches
 * ({@code --feature-cache-bytes} as {@link TypedRowCaches#split} shares it among the types, at most
 * each type's whole table; their pages are always on the heap) and their bookkeeping per slot
 * ({@link RowCacheSizing#heapBesideRows}); the learned embedding tables of the embedded types
 * ({@code --learned-embeddings}: a type's vertices x the input width, with both sparse Adam
 * moments); the dense parameters with their gradients and Adam moments; and the batches the loaders
 * keep ready ({@code min(loader-threads, parts) x (prefetch + 1)}, one epoch at a time; 1 without
 * loaders), each of a mean batch's nodes x the narrowest input row of a type (none where a type is
 * embedded: its rows are read at the step; none at all where the backend reads the featured types'
 * rows in place, {@code --feature-access zero-copy} or {@code device}: the batches bring node ids
 * only). Activations and everything else come on top: a run over the bound cannot fit; one under it
 * may still run out.
 */
final class TypedTrainMemory {
  private final TypedModelConfig cfg;
  private final int[] rowBytes;
  private final TypedCacheSettings cache;
  private final long readyBatches;
  private final long nodesPerBatch;
  private final boolean rowsInPlace;

  /**
   * @param rowBytes per type, the encoded bytes of one stored feature row (0 where none)
   * @param cache the feature cache, or null for none
   * @param loading the loaders, or null when batches are read on the training thread
   * @param access the run's feature access ({@code --feature-access}; null: gather): the ready
   *     batches hold no rows where it reads them in place ({@link FeatureAccessMode#readsInPlace};
   *     {@code auto} counts them until the run resolves it, {@link #rowsInPlace})
   */
  TypedTrainMemory(
      TypedModelConfig cfg,
      int[] rowBytes,
      TypedCacheSettings cache,
      ShardManifest shards,
      TrainSpec.Loading loading,
      FeatureAccessMode access) {
    this(
        cfg,
        rowBytes.clone(),
        cache,
        loading == null
            ? 1
            : TrainMemory.readyBatches(
                loading.loaderThreads(), loading.prefetch(), shards, 1, true),
        TrainMemory.nodesPerBatch(shards),
        access != null && access.readsInPlace());
  }

  private TypedTrainMemory(
      TypedModelConfig cfg,
      int[] rowBytes,
      TypedCacheSettings cache,
      long readyBatches,
      long nodesPerBatch,
      boolean rowsInPlace) {
    this.cfg = cfg;
    this.rowBytes = rowBytes;
    this.cache = cache;
    this.readyBatches = readyBatches;
    this.nodesPerBatch = nodesPerBatch;
    this.rowsInPlace = rowsInPlace;
  }

  /**
   * This bound once the run has resolved its feature access: {@code inPlace} when the backend reads
   * the featured types' rows itself (the ready batches then hold node ids only).
   */
  TypedTrainMemory rowsInPlace(boolean inPlace) {
    return new TypedTrainMemory(cfg, rowBytes, cache, readyBatches, nodesPerBatch, inPlace);
  }

  /** The encoded row bytes per type of {@code graph}'s stored features (none in memory). */
  static int[] rowBytes(TypedGraph graph, TypedModelConfig cfg) {
    int[] out = new int[cfg.numTypes()];
    if (graph instanceof TypedGraphStore store) {
      for (int t = 0; t < out.length; t++) {
        FeatureParams p = store.featureParams(t);
        out[t] = p == null ? 0 : p.rowBytes();
      }
    }
    return out;
  }

  /** The heap of the feature caches: their rows and their bookkeeping; 0 without a cache. */
  long cacheBytes() {
    if (cache == null || cache.policy() == CachePolicy.NONE) {
      return 0;
    }
    long[] typeBytes = new long[cfg.numTypes()];
    for (int t = 0; t < typeBytes.length; t++) {
      TypedModelConfig.TypeInput in = cfg.type(t);
      typeBytes[t] = in.embedded() ? 0 : Math.multiplyExact(in.count(), (long) rowBytes[t]);
    }
    long[] budget = TypedRowCaches.split(cache.bytes(), typeBytes);
    long bytes = 0;
    for (int t = 0; t < typeBytes.length; t++) {
      if (typeBytes[t] > 0) {
        long count = cfg.type(t).count();
        long slots = RowCacheSizing.capacityRows(cache.policy(), budget[t], rowBytes[t], count);
        bytes +=
            slots * rowBytes[t]
                + RowCacheSizing.heapBesideRows(cache.policy(), slots, rowBytes[t], count, 0, 0);
      }
    }
    return bytes;
  }

  /** The heap of the embedded types' learned tables with their Adam moments. */
  long tableBytes() {
    long bytes = 0;
    for (int t = 0; t < cfg.numTypes(); t++) {
      if (cfg.type(t).embedded()) {
        bytes += TrainMemory.learnedTableBytes(cfg.type(t).count(), cfg.inputWidth());
      }
    }
    return bytes;
  }

  /**
   * The floats of a mean batch's rows the loaders gather: its nodes x the narrowest row; none when
   * the rows are read in place.
   */
  long batchFloats() {
    if (rowsInPlace) {
      return 0;
    }
    long narrowest = Long.MAX_VALUE;
    for (int t = 0; t < cfg.numTypes(); t++) {
      TypedModelConfig.TypeInput in = cfg.type(t);
      narrowest = Math.min(narrowest, in.embedded() ? 0 : in.featureDim());
    }
    return nodesPerBatch * (narrowest == Long.MAX_VALUE ? 0 : narrowest);
  }

  /** Bytes the run holds at once at the least, with {@code numParams} dense parameters. */
  long leastBytes(long numParams) {
    return cacheBytes()
        + tableBytes()
        + TrainMemory.denseBytes(numParams)
        + 4L * readyBatches * batchFloats();
  }

  /**
   * Refuses the run when {@link #leastBytes} exceeds {@code maxHeap} ({@code Runtime.maxMemory()}
   * where it runs); called before the caches and the model are built with the dense parameters not
   * known yet (0), and again once the model has them.
   *
   * @throws OutOfHeapException naming both figures, what they are made of and what to change
   */
  void check(long numParams, long maxHeap) {
    long need = leastBytes(numParams);
    TrainMemory.refuseOver(need, maxHeap, () -> madeOf(numParams), change(need));
  }

  private String madeOf(long numParams) {
    StringBuilder s = new StringBuilder();
    long c = cacheBytes();
    if (c > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "the typed feature caches hold %s (--feature-cache-bytes %d and their bookkeeping), ",
              OutOfHeapException.size(c),
              cache.bytes()));
    }
    long tables = tableBytes();
    if (tables > 0) {
      StringBuilder types = new StringBuilder();
      for (int t = 0; t < cfg.numTypes(); t++) {
        TypedModelConfig.TypeInput in = cfg.type(t);
        if (in.embedded()) {
          types.append(types.length() == 0 ? "" : ", ");
          types.append(String.format(Locale.ROOT, "'%s' (%,d vertices)", in.name(), in.count()));
        }
      }
      s.append(
          String.format(
              Locale.ROOT,
              "the learned embedding tables (--learned-embeddings) of %s x %d floats (the input width),"
                  + " with their Adam moments, hold %s, ",
              types,
              cfg.inputWidth(),
              OutOfHeapException.size(tables)));
    }
    s.append(
        String.format(
            Locale.ROOT,
            "the loaders keep %d batches ready, each of about %,d nodes%s, and ",
            readyBatches,
            nodesPerBatch,
            rowsInPlace ? " (node ids only: --feature-access reads the rows in place)" : ""));
    s.append(
        numParams == 0
            ? "the model's parameters come on top (not built yet)"
            : String.format(
                Locale.ROOT,
                "the model holds %,d parameters with their gradients and Adam moments",
                numParams));
    return s.toString();
  }

  private String change(long need) {
    StringBuilder s = new StringBuilder();
    if (cacheBytes() > 0) {
      s.append("choose a smaller --feature-cache-bytes, ");
    }
    if (tableBytes() > 0) {
      s.append(
          "choose a smaller input width (--hidden) or embed only the featureless types"
              + " (--learned-embeddings auto), ");
    }
    return s
        + "keep fewer batches ready (--loader-threads, --prefetch) or "
        + OutOfHeapException.moreHeap(need + need / 2);
  }
}
