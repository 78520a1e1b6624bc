package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** What {@code prepare --self-loops} does with edges v -> v: keep or drop them. */
public enum SelfLoopPolicy implements OptionEnum {
  KEEP("keep"),
  DROP("drop");

  private final String id;

  SelfLoopPolicy(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static SelfLoopPolicy parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
