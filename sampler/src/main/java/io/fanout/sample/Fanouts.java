package io.fanout.sample;

import java.util.Arrays;

/** Per-hop fanouts: {@code fanouts[h-1]} neighbors per node at hop {@code h}; -1 takes all. */
public final class Fanouts {
  private Fanouts() {}

  /**
   * Parses a comma-separated list such as {@code 15,10,5}. Hop 1 (from the seeds) samples the first
   * value.
   *
   * @throws IllegalArgumentException saying what was expected
   */
  public static int[] parse(String text) {
    String[] parts = text.trim().split(",", -1);
    if (text.isBlank()) {
      throw new IllegalArgumentException("expected comma-separated fanouts such as 15,10,5");
    }
    int[] out = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      String p = parts[i].trim();
      int f;
      try {
        f = Integer.parseInt(p);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "fanout " + (i + 1) + " is '" + p + "'; expected a positive integer or -1 (all)");
      }
      if (f == 0 || f < -1) {
        throw new IllegalArgumentException(
            "fanout " + (i + 1) + " is " + f + "; expected a positive integer or -1 (all)");
      }
      out[i] = f;
    }
    return out;
  }

  /** The canonical text of {@code fanouts}, e.g. {@code 15,10,5}. */
  public static String format(int[] fanouts) {
    String s = Arrays.toString(fanouts);
    return s.substring(1, s.length() - 1).replace(" ", "");
  }
}
