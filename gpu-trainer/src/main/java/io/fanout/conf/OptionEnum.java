package io.fanout.conf;

import io.fanout.store.EnumSpellings;

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
    return EnumSpellings.parse(raw, values, OptionEnum::id);
  }

  /** The spellings of {@code values}, joined by {@code |}. */
  static String ids(OptionEnum[] values) {
    return EnumSpellings.ids(values, OptionEnum::id);
  }
}
