package io.fanout.train;

import io.fanout.store.EnumSpellings;

/** Which model of a model dir {@code evaluate} and {@code infer} read. */
public enum CheckpointPick {
  LAST("last"),
  BEST("best");

  private final String id;

  CheckpointPick(String id) {
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
  public static CheckpointPick parse(String raw) {
    return EnumSpellings.parse(raw, values(), CheckpointPick::id);
  }
}
