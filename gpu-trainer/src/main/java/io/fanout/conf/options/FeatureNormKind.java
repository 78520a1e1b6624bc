package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** The row normalization of input features ({@code train --feature-norm}). */
public enum FeatureNormKind implements OptionEnum {
  NONE("none"),
  L1("l1"),
  L2("l2");

  private final String id;

  FeatureNormKind(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static FeatureNormKind parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
