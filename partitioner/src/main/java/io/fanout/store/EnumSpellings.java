package io.fanout.store;

import java.util.Locale;
import java.util.function.Function;

/**
 * Reading a mode by its spelling: the one parser behind every mode enum's {@code parse}, so each
 * accepts the same forms (case-insensitive, trimmed) and refuses with the same message.
 */
public final class EnumSpellings {
  private EnumSpellings() {}

  /**
   * The value of {@code among} whose {@code id} is {@code raw}, compared case-insensitively after
   * trimming.
   *
   * @throws IllegalArgumentException "expected one of a|b|c", listing {@code among}
   */
  public static <E> E parse(String raw, E[] among, Function<? super E, String> id) {
    String v = raw.trim().toLowerCase(Locale.ROOT);
    for (E e : among) {
      if (id.apply(e).equals(v)) {
        return e;
      }
    }
    throw new IllegalArgumentException("expected one of " + ids(among, id));
  }

  /** The spellings of {@code values}, joined by {@code |}. */
  public static <E> String ids(E[] values, Function<? super E, String> id) {
    StringBuilder b = new StringBuilder();
    for (E e : values) {
      b.append(b.length() == 0 ? "" : "|").append(id.apply(e));
    }
    return b.toString();
  }
}
