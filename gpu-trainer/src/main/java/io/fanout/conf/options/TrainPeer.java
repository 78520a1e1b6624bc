package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** The peer {@code bench-train --peer} trains against: none, or plain PyTorch. */
public enum TrainPeer implements OptionEnum {
  NONE("none"),
  TORCH("torch");

  private final String id;

  TrainPeer(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static TrainPeer parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
