package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/**
 * What {@code prepare --dangling} does with edges whose endpoint is not a vertex: fail, or drop and
 * count them.
 */
public enum DanglingPolicy implements OptionEnum {
  ERROR("error"),
  DROP("drop");

  private final String id;

  DanglingPolicy(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static DanglingPolicy parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
