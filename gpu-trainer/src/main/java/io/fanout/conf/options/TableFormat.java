package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** The format of an input table: {@code prepare --format}, {@code infer --pairs-format}. */
public enum TableFormat implements OptionEnum {
  PARQUET("parquet"),
  CSV("csv");

  private final String id;

  TableFormat(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static TableFormat parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
