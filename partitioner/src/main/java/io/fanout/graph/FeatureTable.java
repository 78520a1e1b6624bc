package io.fanout.graph;

/**
 * Feature rows by dense vertex id, decoded to float32 whatever the stored encoding. Thread-safe for
 * reads.
 */
public interface FeatureTable {
  int numVertices();

  /** Features per row; 0 when the store has none. */
  int dim();

  /**
   * Copies the rows of {@code ids[from .. from+count)} into {@code out}, row-major, starting at
   * {@code outOffset}: row {@code i} lands at {@code outOffset + i * dim()}.
   */
  void gather(int[] ids, int from, int count, float[] out, int outOffset);

  /**
   * The decoder of the rows as stored ({@link #gatherEncoded}); null for a table that keeps no
   * encoded rows (an in-memory table).
   */
  default RowDecoder decoder() {
    return null;
  }

  /**
   * Copies the rows of {@code ids[from .. from+count)} as stored, {@code decoder().rowBytes()}
   * bytes each, undecoded, into {@code out} from {@code outOffset}.
   *
   * @throws UnsupportedOperationException when the table keeps no encoded rows ({@link #decoder}
   *     null)
   */
  default void gatherEncoded(int[] ids, int from, int count, byte[] out, int outOffset) {
    throw new UnsupportedOperationException("this feature table keeps no encoded rows");
  }
}
