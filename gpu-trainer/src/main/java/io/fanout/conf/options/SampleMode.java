package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/**
 * How {@code sample} runs: each task maps the whole store, or hop-by-hop joins with its partitions.
 */
public enum SampleMode implements OptionEnum {
  REPLICATED("replicated"),
  PARTITIONED("partitioned");

  private final String id;

  SampleMode(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static SampleMode parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
