package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** Where {@code --reuse-hot}'s refreshes run. */
public enum ReuseRefresh implements OptionEnum {
  AUTO("auto"),
  OVERLAPPED("overlapped"),
  INLINE("inline");

  private final String id;

  ReuseRefresh(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static ReuseRefresh parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
