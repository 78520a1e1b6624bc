package io.fanout.train;

import java.util.Locale;

/** Where {@code --reuse-hot}'s refreshes run. */
public enum ReuseRefresh {
  AUTO("auto"),
  OVERLAPPED("overlapped"),
  INLINE("inline");

  private final String id;

  ReuseRefresh(String id) {
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
  public static ReuseRefresh parse(String raw) {
    String v = raw.trim().toLowerCase(Locale.ROOT);
    StringBuilder ids = new StringBuilder();
    for (ReuseRefresh e : values()) {
      if (e.id.equals(v)) {
        return e;
      }
      ids.append(ids.length() == 0 ? "" : "|").append(e.id);
    }
    throw new IllegalArgumentException("expected one of " + ids);
  }
}
