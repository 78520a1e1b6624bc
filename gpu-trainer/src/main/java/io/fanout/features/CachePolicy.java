package io.fanout.features;

import io.fanout.store.InvalidInputException;
import java.util.Locale;

/** Which rows a {@link RowCache} keeps; see {@code docs/feature-cache.md}. */
public enum CachePolicy {
  /**
   * Belady's MIN over a planned window of upcoming batches: evicts (or does not admit) the row
   * whose next use is furthest in the future.
   */
  BELADY,
  /** Evicts the least recently used row. */
  LRU,
  /** Keeps nothing: every row is read from disk every time. */
  NONE;

  /** The lower-case name used by {@code --feature-cache}. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code belady}, {@code lru} or {@code none}. */
  public static CachePolicy parse(String s) {
    for (CachePolicy p : values()) {
      if (p.id().equals(s)) {
        return p;
      }
    }
    throw new InvalidInputException(
        "--feature-cache is '" + s + "'; expected one of belady, lru, none");
  }
}
