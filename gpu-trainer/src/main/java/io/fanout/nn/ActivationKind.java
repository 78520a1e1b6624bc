package io.fanout.nn;

import io.fanout.store.EnumSpellings;

/** The activation between layers ({@code train --activation}). */
public enum ActivationKind {
  RELU("relu"),
  ELU("elu");

  private final String id;

  ActivationKind(String id) {
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
  public static ActivationKind parse(String raw) {
    return EnumSpellings.parse(raw, values(), ActivationKind::id);
  }
}
