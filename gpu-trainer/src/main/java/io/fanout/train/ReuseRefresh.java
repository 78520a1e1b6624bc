package io.fanout.train;

import io.fanout.store.EnumSpellings;

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
    return EnumSpellings.parse(raw, values(), ReuseRefresh::id);
  }
}
