package io.fanout.conf;

import java.util.Collection;
import java.util.Locale;

/**
 * Option names as the Java API takes them: in any case, and with hyphens, underscores or camel case
 * between the words, as Spark takes its own option names ({@code batch-size}, {@code batchSize},
 * {@code BATCH-SIZE} and {@code batch_size} are one name).
 */
public final class OptionSpelling {
  private OptionSpelling() {}

  /** The form every spelling of a name shares: lower case, without hyphens and underscores. */
  public static String fold(String name) {
    return name.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }

  /**
   * The defined name of {@code defs} that {@code given} spells, or {@code given} itself when none
   * does (an unknown option, refused later with the known names).
   */
  public static String canonical(String given, Collection<OptionDef<?>> defs) {
    String folded = fold(given);
    for (OptionDef<?> d : defs) {
      if (fold(d.name()).equals(folded)) {
        return d.name();
      }
    }
    return given;
  }
}
