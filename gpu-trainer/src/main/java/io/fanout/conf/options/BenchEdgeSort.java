package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/**
 * {@code bench-prepare --edge-sort}: one of prepare's {@link EdgeSort}s, or both in one run (task,
 * then sql).
 */
public enum BenchEdgeSort implements OptionEnum {
  TASK("task"),
  SQL("sql"),
  BOTH("both");

  private final String id;

  BenchEdgeSort(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static BenchEdgeSort parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
