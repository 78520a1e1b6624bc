package io.fanout.features;

import java.util.Locale;

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
    String v = raw.trim().toLowerCase(Locale.ROOT);
    StringBuilder ids = new StringBuilder();
    for (FeatureCacheIo e : values()) {
      if (e.id.equals(v)) {
        return e;
      }
      ids.append(ids.length() == 0 ? "" : "|").append(e.id);
    }
    throw new IllegalArgumentException("expected one of " + ids);
  }
}
