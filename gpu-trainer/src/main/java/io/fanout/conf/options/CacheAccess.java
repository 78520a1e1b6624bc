package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/**
 * How {@code bench-cache --access} reads a batch's rows: resolve them in the cache's pages
 * (zero-copy readers), or gather them into a buffer.
 */
public enum CacheAccess implements OptionEnum {
  RESOLVE("resolve"),
  GATHER("gather");

  private final String id;

  CacheAccess(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static CacheAccess parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
