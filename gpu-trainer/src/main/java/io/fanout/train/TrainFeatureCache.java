package io.fanout.train;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureFiles;
import io.fanout.features.RowCache;
import io.fanout.graph.GraphStore;
import io.fanout.shard.FeatureEncoding;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.PageMemory;

/** The feature cache ({@link RowCache}) a training run reads its rows through. */
public final class TrainFeatureCache {
  private TrainFeatureCache() {}

  /** I/O threads of a feature cache's disk reader (the benchmarks default to it too). */
  public static final int IO_THREADS = 4;

  /**
   * A feature cache of {@code spec.features().cacheBytes()} for {@code shards} ({@code policy}
   * null: none, the memory-mapped store is read). The validation shards get their own cache of
   * policy {@code none} (no memory): they are read while the next training epoch's loader already
   * holds the training cache.
   */
  static RowCache open(TrainSpec spec, GraphStore store, ShardSet shards, CachePolicy policy) {
    return open(spec, store, shards, policy, PageMemory.HEAP);
  }

  /** As above, the cached rows kept in {@code pages}. */
  static RowCache open(
      TrainSpec spec, GraphStore store, ShardSet shards, CachePolicy policy, PageMemory pages) {
    if (policy == null) {
      return null;
    }
    CachePolicy p = policy;
    long bytes = p == CachePolicy.NONE ? 0 : spec.features().cacheBytes();
    long rowBytes = store.featureParams() == null ? 0 : store.featureParams().rowBytes();
    if (p != CachePolicy.NONE && bytes < rowBytes) {
      throw new InvalidInputException(
          "--feature-cache "
              + policy.id()
              + " needs --feature-cache-bytes of at least one feature row ("
              + rowBytes
              + " bytes as the store encodes it, "
              + store.manifest().featureEncoding
              + "), got "
              + spec.features().cacheBytes()
              + "; give the cache size in bytes, or use --feature-cache none");
    }
    if (shards.featureEncoding() != FeatureEncoding.NONE) {
      throw new InvalidInputException(
          spec.inputs().shards()
              + " inlines "
              + shards.featureEncoding()
              + " features; --feature-cache reads node-id-only shards (sample without inline"
              + " features), or leave --feature-cache out");
    }
    return new RowCache(
        FeatureFiles.open(store, IO_THREADS, spec.features().cacheDirect()),
        p,
        bytes,
        pages,
        spec.features().cacheWindow());
  }
}
