package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** How {@code sample --task link} draws a positive's negative destinations. */
public enum NegativeMode implements OptionEnum {
  UNIFORM("uniform"),
  DEGREE("degree"),
  IN_BATCH("in-batch");

  private final String id;

  NegativeMode(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static NegativeMode parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
