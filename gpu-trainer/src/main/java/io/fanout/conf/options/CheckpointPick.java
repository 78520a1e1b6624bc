package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** Which model of a model dir {@code evaluate} and {@code infer} read. */
public enum CheckpointPick implements OptionEnum {
  LAST("last"),
  BEST("best");

  private final String id;

  CheckpointPick(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static CheckpointPick parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
