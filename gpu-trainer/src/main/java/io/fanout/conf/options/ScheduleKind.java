package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** The learning rate schedule ({@code train --schedule}). */
public enum ScheduleKind implements OptionEnum {
  CONSTANT("constant"),
  COSINE("cosine"),
  STEP("step");

  private final String id;

  ScheduleKind(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static ScheduleKind parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
