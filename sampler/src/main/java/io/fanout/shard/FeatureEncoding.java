package io.fanout.shard;

import java.util.Locale;

/**
 * How a shard inlines feature rows: not at all, as float32, as IEEE half precision, or as the graph
 * store encodes them ({@code int8}, {@code int4}, {@code pq}: the store's rows copied undecoded,
 * decoded by the trainer with the store's parameters, see {@link #stored}).
 */
public enum FeatureEncoding {
  NONE(0, false),
  F32(4, false),
  F16(2, false),
  INT8(0, true),
  INT4(0, true),
  PQ(0, true);

  private final int bytesPerValue;
  private final boolean stored;

  FeatureEncoding(int bytesPerValue, boolean stored) {
    this.bytesPerValue = bytesPerValue;
    this.stored = stored;
  }

  /** Bytes per stored value; 0 for {@link #NONE} and the {@link #stored} encodings. */
  public int bytesPerValue() {
    return bytesPerValue;
  }

  /**
   * Whether rows are inlined as the graph store encodes them (its {@code feature_encoding} of the
   * same name): the bytes of a row then depend on the store's parameters, not on this value alone.
   */
  public boolean stored() {
    return stored;
  }

  /**
   * The lower-case name used by options and manifests ({@code none}, {@code f32}, {@code f16},
   * {@code int8}, {@code int4}, {@code pq}).
   */
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
        "unknown feature encoding '" + id + "'; expected none|f32|f16|int8|int4|pq");
  }
}
