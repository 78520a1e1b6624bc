package io.fanout.conf;

import java.util.Collection;

/** The known name closest to a misspelt one, by edit distance, for "did you mean" hints. */
public final class ClosestName {
  private ClosestName() {}

  /**
   * The name of {@code known} nearest to {@code name} (Levenshtein distance, the first on a tie),
   * or null when {@code known} is empty.
   */
  public static String of(String name, Collection<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = distance(name, k);
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return best;
  }

  /**
   * The number of single-character inserts, deletes and substitutions from {@code a} to {@code b}.
   */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(substitute, Math.min(prev[j], cur[j - 1]) + 1);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
