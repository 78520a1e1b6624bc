package io.fanout.features;

import io.fanout.store.EnumSpellings;

/** How the row cache reads rows from disk ({@code train --feature-cache-io}). */
public enum FeatureCacheIo {
  BUFFERED("buffered"),
  DIRECT("direct");

  private final String id;

  FeatureCacheIo(String id) {
    this.id = id;
  }

  /** The spelling of this value in options, checkpoints and messages. */
  public String id() {
    return id;
  }

  /**
   * The value spelled {@code raw}, compared case-insensitively after trimming.
   *
   * @throws IllegalArgumentException "expected one of a|b|c"
   */
  public static FeatureCacheIo parse(String raw) {
    return EnumSpellings.parse(raw, values(), FeatureCacheIo::id);
  }
}
