package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** The seed vertices {@code sample --split} draws: a split of the store, or all. */
public enum SeedSplit implements OptionEnum {
  TRAIN("train"),
  VAL("val"),
  TEST("test"),
  ALL("all");

  private final String id;

  SeedSplit(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static SeedSplit parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
