package io.fanout.train;

import io.fanout.store.EnumSpellings;

/** How layer 0 gets gradient from the rows a step reuses ({@code --reuse-backward}). */
public enum ReuseBackward {
  NONE("none"),
  DEFERRED("deferred");

  private final String id;

  ReuseBackward(String id) {
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
  public static ReuseBackward parse(String raw) {
    return EnumSpellings.parse(raw, values(), ReuseBackward::id);
  }
}
