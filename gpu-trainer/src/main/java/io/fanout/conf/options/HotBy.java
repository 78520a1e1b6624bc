package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** How {@code --reuse-hot} ranks vertices. */
public enum HotBy implements OptionEnum {
  FREQUENCY("frequency"),
  IN_DEGREE("in-degree");

  private final String id;

  HotBy(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static HotBy parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
