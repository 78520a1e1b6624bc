package io.fanout.train;

import java.util.Locale;

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
    String v = raw.trim().toLowerCase(Locale.ROOT);
    StringBuilder ids = new StringBuilder();
    for (CheckpointPick e : values()) {
      if (e.id.equals(v)) {
        return e;
      }
      ids.append(ids.length() == 0 ? "" : "|").append(e.id);
    }
    throw new IllegalArgumentException("expected one of " + ids);
  }
}
