package io.fanout.nn;

import io.fanout.store.EnumSpellings;

/** Link prediction's pair scorer ({@code train --decoder}). */
public enum DecoderKind {
  DOT("dot"),
  MLP("mlp");

  private final String id;

  DecoderKind(String id) {
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
  public static DecoderKind parse(String raw) {
    return EnumSpellings.parse(raw, values(), DecoderKind::id);
  }
}
