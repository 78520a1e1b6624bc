package io.fanout.train;

import io.fanout.store.EnumSpellings;

/** How a step gets its input features ({@code --feature-access}). */
public enum FeatureAccessMode {
  GATHER("gather"),
  ZERO_COPY("zero-copy");

  private final String id;

  FeatureAccessMode(String id) {
    this.id = id;
  }

  /** The spelling of this value in options, checkpoints and messages. */
  public String id() {
    return id;
  }

  /**
   * The value spelled {@code raw}, compared case-insensitively after trimming.
   *
   * @throws IllegalArgumentException "expected one of a|b|c"
   */
  public static FeatureAccessMode parse(String raw) {
    return EnumSpellings.parse(raw, values(), FeatureAccessMode::id);
  }
}
