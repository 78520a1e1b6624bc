package io.fanout.conf.options;

import io.fanout.conf.OptionEnum;

/** The Parquet page compression of the shards {@code sample} writes. */
public enum ShardCompression implements OptionEnum {
  UNCOMPRESSED("uncompressed"),
  SNAPPY("snappy"),
  ZSTD("zstd");

  private final String id;

  ShardCompression(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static ShardCompression parse(String raw) {
    return OptionEnum.parse(raw, values());
  }
}
