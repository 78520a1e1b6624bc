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
}
