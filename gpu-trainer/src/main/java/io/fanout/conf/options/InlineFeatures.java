package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/**
 * The feature rows {@code sample --features} inlines into the shards, by encoding; none = ids only.
 */
public enum InlineFeatures implements OptionEnum {
  NONE("none"),
  F32("f32"),
  F16("f16"),
  INT8("int8"),
  INT4("int4"),
  PQ("pq");

  private final String id;

  InlineFeatures(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static InlineFeatures parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
