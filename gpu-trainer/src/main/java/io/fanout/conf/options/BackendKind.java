package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** The tensor backend {@code --backend} names. */
public enum BackendKind implements OptionEnum {
  AUTO("auto"),
  CPU("cpu"),
  CUDA("cuda"),
  CPU_CHECKED("cpu-checked");

  private final String id;

  BackendKind(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static BackendKind parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
