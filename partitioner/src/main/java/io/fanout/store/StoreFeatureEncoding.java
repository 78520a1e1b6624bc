package io.fanout.store;

/**
 * How a graph store keeps its feature rows (its manifest's {@code feature_encoding}, {@code
 * --feature-encoding}): float32, half precision, per-column affine 8 or 4 bits, or product
 * quantization. Each value carries its {@link StoreLayout} code.
 */
public enum StoreFeatureEncoding {
  F32("f32", StoreLayout.ENCODING_F32),
  F16("f16", StoreLayout.ENCODING_F16),
  INT8("int8", StoreLayout.ENCODING_INT8),
  INT4("int4", StoreLayout.ENCODING_INT4),
  PQ("pq", StoreLayout.ENCODING_PQ);

  private final String id;
  private final int code;

  StoreFeatureEncoding(String id, int code) {
    this.id = id;
    this.code = code;
  }

  /** The spelling in options and manifests, e.g. {@code int8}. */
  public String id() {
    return id;
  }

  /** The encoding's code in the feature file headers ({@link StoreLayout#encodingCode}). */
  public int code() {
    return code;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static StoreFeatureEncoding parse(String raw) {
    return parse(raw, values());
  }

  /**
   * The value of {@code among} spelled {@code raw}, compared case-insensitively after trimming.
   *
   * @throws IllegalArgumentException "expected one of a|b|c"
   */
  public static StoreFeatureEncoding parse(String raw, StoreFeatureEncoding... among) {
    return EnumSpellings.parse(raw, among, StoreFeatureEncoding::id);
  }
}
