package io.fanout.train;

import io.fanout.store.EnumSpellings;

/** What the {@code --reuse-hot} cache holds. */
public enum ReuseRows {
  AUTO("auto"),
  OUTPUTS("outputs"),
  INPUTS("inputs");

  private final String id;

  ReuseRows(String id) {
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
  public static ReuseRows parse(String raw) {
    return EnumSpellings.parse(raw, values(), ReuseRows::id);
  }
}
