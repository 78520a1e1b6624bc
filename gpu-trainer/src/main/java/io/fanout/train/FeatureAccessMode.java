package io.fanout.train;

import io.fanout.store.EnumSpellings;

/**
 * How a step gets its input features ({@code --feature-access}); {@link #AUTO} is resolved per run
 * by {@link FeatureAccessChoice}.
 */
public enum FeatureAccessMode {
  /** The loader gathers each batch's rows on the host; the step uploads them. */
  GATHER("gather"),
  /** The store's rows stay in host memory; the backend reads a batch's rows in place. */
  ZERO_COPY("zero-copy"),
  /** The store's encoded rows are copied once into the device's memory and read there. */
  DEVICE("device"),
  /** {@link #DEVICE} when the rows fit, else {@link #ZERO_COPY}, else {@link #GATHER}. */
  AUTO("auto");

  private final String id;

  FeatureAccessMode(String id) {
    this.id = id;
  }

  /** The spelling of this value in options, checkpoints and messages. */
  public String id() {
    return id;
  }

  /** Whether the backend reads the rows itself, the loader sending only node ids. */
  public boolean readsInPlace() {
    return this == ZERO_COPY || this == DEVICE;
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
