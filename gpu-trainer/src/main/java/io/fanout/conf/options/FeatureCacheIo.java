package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** How the row cache reads rows from disk ({@code train --feature-cache-io}). */
public enum FeatureCacheIo implements OptionEnum {
  BUFFERED("buffered"),
  DIRECT("direct");

  private final String id;

  FeatureCacheIo(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static FeatureCacheIo parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
