package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/**
 * How {@code prepare --id-lookup} gives edge endpoints their dense ids: in the csr-writing tasks,
 * by Spark SQL joins, or task where it applies.
 */
public enum IdLookup implements OptionEnum {
  AUTO("auto"),
  TASK("task"),
  SQL("sql");

  private final String id;

  IdLookup(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static IdLookup parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
