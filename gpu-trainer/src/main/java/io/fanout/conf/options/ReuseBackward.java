package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** How layer 0 gets gradient from the rows a step reuses ({@code --reuse-backward}). */
public enum ReuseBackward implements OptionEnum {
  NONE("none"),
  DEFERRED("deferred");

  private final String id;

  ReuseBackward(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static ReuseBackward parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
