package io.fanout.conf;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * An option value given once for every vertex type or per type ({@link OptionDef#perType}): {@code
 * f16}, or {@code paper=f16,author=f32}, or {@code f16,term=f32} (one entry without a type is the
 * value of every type not named).
 *
 * @param <T> the value type
 * @param fallback the value of the types not named
 * @param byType the values of named types, in the order given
 */
public record PerType<T>(T fallback, Map<String, T> byType) {
  public PerType {
    byType = Collections.unmodifiableMap(new LinkedHashMap<>(byType));
  }

  /** The value of type {@code type}. */
  public T of(String type) {
    return byType.getOrDefault(type, fallback);
  }

  /** Whether the value names types (then it applies to typed graphs only). */
  public boolean namesTypes() {
    return !byType.isEmpty();
  }

  /**
   * Parses {@code raw}: comma-separated entries {@code TYPE=VALUE}, and at most one {@code VALUE}
   * for the types not named ({@code fallback} when there is none); each value by {@code parse}.
   *
   * @throws IllegalArgumentException naming the entry that is not understood
   */
  static <T> PerType<T> parse(String raw, T fallback, Function<String, T> parse) {
    Map<String, T> byType = new LinkedHashMap<>();
    T all = null;
    for (String entry : raw.split(",", -1)) {
      String e = entry.trim();
      int eq = e.indexOf('=');
      if (eq < 0) {
        if (all != null) {
          throw new IllegalArgumentException(
              "two values for all types in '" + raw + "'; expected VALUE or TYPE=VALUE,...");
        }
        all = parse.apply(e);
        continue;
      }
      String type = e.substring(0, eq).trim();
      if (type.isEmpty()) {
        throw new IllegalArgumentException("entry '" + e + "' names no type; expected TYPE=VALUE");
      }
      if (byType.put(type, parse.apply(e.substring(eq + 1))) != null) {
        throw new IllegalArgumentException("type '" + type + "' is given twice");
      }
    }
    return new PerType<>(all != null ? all : fallback, byType);
  }
}
