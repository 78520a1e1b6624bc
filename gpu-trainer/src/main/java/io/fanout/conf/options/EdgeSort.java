package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/**
 * How {@code prepare --edge-sort} orders edges by destination: a counting sort in each csr-writing
 * task, or Spark SQL's sort.
 */
public enum EdgeSort implements OptionEnum {
  TASK("task"),
  SQL("sql");

  private final String id;

  EdgeSort(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static EdgeSort parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
