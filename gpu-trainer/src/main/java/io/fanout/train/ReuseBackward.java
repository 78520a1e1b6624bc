package io.fanout.train;

import java.util.Locale;

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
    String v = raw.trim().toLowerCase(Locale.ROOT);
    StringBuilder ids = new StringBuilder();
    for (ReuseBackward e : values()) {
      if (e.id.equals(v)) {
        return e;
      }
      ids.append(ids.length() == 0 ? "" : "|").append(e.id);
    }
    throw new IllegalArgumentException("expected one of " + ids);
  }
}
