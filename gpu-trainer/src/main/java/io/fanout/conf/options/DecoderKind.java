package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** Link prediction's pair scorer ({@code train --decoder}). */
public enum DecoderKind implements OptionEnum {
  DOT("dot"),
  MLP("mlp");

  private final String id;

  DecoderKind(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static DecoderKind parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
