package io.fanout.train;

import io.fanout.store.EnumSpellings;

/** How {@code --reuse-hot} ranks vertices. */
public enum HotBy {
  FREQUENCY("frequency"),
  IN_DEGREE("in-degree");

  private final String id;

  HotBy(String id) {
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
  public static HotBy parse(String raw) {
    return EnumSpellings.parse(raw, values(), HotBy::id);
  }
}
