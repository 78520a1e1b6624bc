package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/**
 * {@code bench-prepare --id-lookup}: one of prepare's {@link IdLookup}s, or both in one run (task,
 * then sql).
 */
public enum BenchIdLookup implements OptionEnum {
  AUTO("auto"),
  TASK("task"),
  SQL("sql"),
  BOTH("both");

  private final String id;

  BenchIdLookup(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static BenchIdLookup parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
