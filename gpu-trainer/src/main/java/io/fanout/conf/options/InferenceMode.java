package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** How {@code evaluate} and {@code infer} compute: full-neighbor (layer-wise) or sampled. */
public enum InferenceMode implements OptionEnum {
  FULL("full"),
  SAMPLED("sampled");

  private final String id;

  InferenceMode(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static InferenceMode parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
