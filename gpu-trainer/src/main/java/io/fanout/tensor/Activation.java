package io.fanout.tensor;

import java.util.Locale;

/** Pointwise activations; derivatives are expressed through the outputs. */
public enum Activation {
  RELU,
  ELU,
  NONE;

  /** Parses {@code relu}, {@code elu} or {@code none}, case-insensitively. */
  public static Activation parse(String s) {
    try {
      return valueOf(s.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("expected relu, elu or none, got '" + s + "'");
    }
  }

  public String lowerName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
