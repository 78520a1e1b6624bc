package io.fanout.shard;

import java.util.Locale;

/** How a shard inlines feature rows: not at all, as float32, or as IEEE half precision. */
public enum FeatureEncoding {
  NONE(0),
  F32(4),
  F16(2);

  private final int bytesPerValue;

  FeatureEncoding(int bytesPerValue) {
    this.bytesPerValue = bytesPerValue;
  }

  /** Bytes per stored value; 0 for {@link #NONE}. */
  public int bytesPerValue() {
    return bytesPerValue;
  }

  /** The lower-case name used by options and manifests ({@code none}, {@code f32}, {@code f16}). */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The encoding named {@code id} (case-insensitive). */
  public static FeatureEncoding of(String id) {
    for (FeatureEncoding e : values()) {
      if (e.id().equalsIgnoreCase(id.trim())) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "unknown feature encoding '" + id + "'; expected none|f32|f16");
  }
}
