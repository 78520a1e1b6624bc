package io.fanout.train;

import java.util.Locale;

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
    String v = raw.trim().toLowerCase(Locale.ROOT);
    StringBuilder ids = new StringBuilder();
    for (ReuseRows e : values()) {
      if (e.id.equals(v)) {
        return e;
      }
      ids.append(ids.length() == 0 ? "" : "|").append(e.id);
    }
    throw new IllegalArgumentException("expected one of " + ids);
  }
}
