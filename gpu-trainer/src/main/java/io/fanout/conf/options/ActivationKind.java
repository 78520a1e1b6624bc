package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** The activation between layers ({@code train --activation}). */
public enum ActivationKind implements OptionEnum {
  RELU("relu"),
  ELU("elu");

  private final String id;

  ActivationKind(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static ActivationKind parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
