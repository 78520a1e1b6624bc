package io.fanout.nn;

/** Learning rate as a function of the epoch. */
public enum LrSchedule {
  /** The base rate throughout. */
  CONSTANT,
  /** Cosine decay from the base rate to 0 over the run. */
  COSINE,
  /** The base rate halved every quarter of the run. */
  STEP;

  /** The spelling of this schedule in options and messages: its lower-case name. */
  public String id() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * The schedule spelled {@code raw}, compared case-insensitively after trimming.
   *
   * @throws IllegalArgumentException "expected one of constant|cosine|step"
   */
  public static LrSchedule parse(String raw) {
    String v = raw.trim().toLowerCase(java.util.Locale.ROOT);
    for (LrSchedule e : values()) {
      if (e.id().equals(v)) {
        return e;
      }
    }
    throw new IllegalArgumentException("expected one of constant|cosine|step");
  }

  /** The rate for 0-based {@code epoch} of {@code epochs}. */
  public float lr(float base, int epoch, int epochs) {
    switch (this) {
      case COSINE:
        return (float) (base * 0.5 * (1 + Math.cos(Math.PI * epoch / Math.max(1, epochs))));
      case STEP:
        int every = Math.max(1, epochs / 4);
        return (float) (base * Math.pow(0.5, epoch / every));
      default:
        return base;
    }
  }
}
