package io.fanout.tensor;

/**
 * How feature rows are encoded, as a backend that reads them in place needs to know it: the
 * encoding, the row width, the bytes of a stored row, and the parameters the decode-gather kernels
 * read. The caller builds it from wherever the rows come from (a graph store's feature parameters,
 * a benchmark's table); the backend never reads the store itself.
 *
 * <p>{@code int8}, {@code int4}: per column {@code c}, {@code x = offset[c] + scale[c] * q}. {@code
 * pq}: columns cut into groups of {@code groupSize}, each row one byte per group, {@code centroids}
 * centroids per group in the flat {@code codebooks}. The arrays are shared, not copied: do not
 * modify them; they are null where the encoding has none.
 *
 * @param kind the encoding
 * @param dim floats per decoded row
 * @param rowBytes bytes per stored row
 * @param groupSize columns per PQ group (0 for other encodings)
 * @param centroids centroids per PQ group (0 for other encodings)
 * @param scale per-column scales of {@code int8} and {@code int4}
 * @param offset per-column offsets of {@code int8} and {@code int4}
 * @param codebooks the flat PQ codebooks
 */
public record RowEncoding(
    Kind kind,
    int dim,
    int rowBytes,
    int groupSize,
    int centroids,
    float[] scale,
    float[] offset,
    float[] codebooks) {

  /** The encodings of a stored feature row. */
  public enum Kind {
    F32("f32"),
    F16("f16"),
    INT8("int8"),
    INT4("int4"),
    PQ("pq");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /** The encoding's name as options and logs spell it ({@code f32}, {@code int8}, ...). */
    public String label() {
      return label;
    }
  }

  /** Rows of {@code dim} float32 values as stored, no parameters. */
  public static RowEncoding f32(int dim) {
    return new RowEncoding(Kind.F32, dim, 4 * dim, 0, 0, null, null, null);
  }
}
