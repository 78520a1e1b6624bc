package io.fanout.tensor;

import java.util.Locale;

/** The tensor backend {@code --backend} names. */
public enum BackendKind {
  AUTO("auto"),
  CPU("cpu"),
  CUDA("cuda"),
  CPU_CHECKED("cpu-checked");

  private final String id;

  BackendKind(String id) {
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
  public static BackendKind parse(String raw) {
    String v = raw.trim().toLowerCase(Locale.ROOT);
    StringBuilder ids = new StringBuilder();
    for (BackendKind e : values()) {
      if (e.id.equals(v)) {
        return e;
      }
      ids.append(ids.length() == 0 ? "" : "|").append(e.id);
    }
    throw new IllegalArgumentException("expected one of " + ids);
  }
}
