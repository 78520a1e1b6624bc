package io.fanout.train.typed;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureCacheIo;
import io.fanout.features.RowCacheSizing;
import java.util.Objects;

/**
 * The feature cache of a typed training run ({@code train --feature-cache}, {@code
 * --feature-cache-bytes}, {@code --feature-cache-io}, {@code --feature-cache-window} on a typed
 * store), as {@link TypedRowCaches} builds it: the options' one-type meaning, the byte budget
 * shared by the types that read stored features.
 *
 * @param policy the eviction policy of every type's cache
 * @param bytes the budget of all the types' cached rows together ({@link CachePolicy#NONE}: none)
 * @param io how misses are read from the types' feature files ({@code direct}: {@code O_DIRECT})
 * @param windowBatches the batches a {@code belady} cache plans at a time, or {@link
 *     RowCacheSizing#AUTO_WINDOW}
 */
public record TypedCacheSettings(
    CachePolicy policy, long bytes, FeatureCacheIo io, int windowBatches) {
  public TypedCacheSettings {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(io, "io");
    if (bytes < 0) {
      throw new IllegalArgumentException("--feature-cache-bytes is " + bytes + "; expected >= 0");
    }
  }

  /** Whether misses are read with {@code O_DIRECT}. */
  public boolean direct() {
    return io == FeatureCacheIo.DIRECT;
  }

  /** The same cache with policy {@link CachePolicy#NONE}: reads every row, holds nothing. */
  TypedCacheSettings none() {
    return new TypedCacheSettings(CachePolicy.NONE, 0, io, RowCacheSizing.DEFAULT_WINDOW_BATCHES);
  }
}
