package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** What the {@code --reuse-hot} cache holds. */
public enum ReuseRows implements OptionEnum {
  AUTO("auto"),
  OUTPUTS("outputs"),
  INPUTS("inputs");

  private final String id;

  ReuseRows(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static ReuseRows parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
