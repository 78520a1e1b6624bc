package io.fanout.conf;

import java.util.Locale;

/**
 * A mode an option names: an enum constant with the spelling the command line, the API and the
 * session configuration use for it.
 */
public interface OptionEnum {
  /** The spelling of this value in options, e.g. {@code zero-copy}. */
  String id();

  /**
   * The value of {@code values} spelled {@code raw}, compared case-insensitively after trimming.
   *
   * @throws IllegalArgumentException "expected one of a|b|c"
   */
  static <E extends OptionEnum> E parse(String raw, E[] values) {
    String v = raw.trim().toLowerCase(Locale.ROOT);
    for (E e : values) {
      if (e.id().equals(v)) {
        return e;
      }
    }
    throw new IllegalArgumentException("expected one of " + ids(values));
  }

  /** The spellings of {@code values}, joined by {@code |}. */
  static String ids(OptionEnum[] values) {
    StringBuilder b = new StringBuilder();
    for (OptionEnum e : values) {
      b.append(b.length() == 0 ? "" : "|").append(e.id());
    }
    return b.toString();
  }
}
