package io.fanout.nn;

import io.fanout.store.EnumSpellings;

/** The row normalization of input features ({@code train --feature-norm}). */
public enum FeatureNormKind {
  NONE("none"),
  L1("l1"),
  L2("l2");

  private final String id;

  FeatureNormKind(String id) {
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
  public static FeatureNormKind parse(String raw) {
    return EnumSpellings.parse(raw, values(), FeatureNormKind::id);
  }
}
