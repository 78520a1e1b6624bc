package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** How a step gets its input features ({@code --feature-access}). */
public enum FeatureAccessMode implements OptionEnum {
  GATHER("gather"),
  ZERO_COPY("zero-copy");

  private final String id;

  FeatureAccessMode(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static FeatureAccessMode parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
