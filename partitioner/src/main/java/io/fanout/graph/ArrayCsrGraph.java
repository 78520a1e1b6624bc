package io.fanout.graph;

/** A {@link CsrGraph} over heap arrays, for tests and small graphs. */
public final class ArrayCsrGraph implements CsrGraph {
  private final long[] indptr;
  private final int[] indices;

  /**
   * @param indptr row pointers, length {@code numVertices + 1}, {@code indptr[0] == 0}
   * @param indices neighbor dense ids, each row sorted ascending
   */
  public ArrayCsrGraph(long[] indptr, int[] indices) {
    if (indptr.length == 0 || indptr[0] != 0 || indptr[indptr.length - 1] != indices.length) {
      throw new IllegalArgumentException("indptr must start at 0 and end at indices.length");
    }
    this.indptr = indptr;
    this.indices = indices;
  }

  @Override
  public int numVertices() {
    return indptr.length - 1;
  }

  @Override
  public long numEdges() {
    return indices.length;
  }

  @Override
  public long rowStart(int v) {
    return indptr[v];
  }

  @Override
  public long rowEnd(int v) {
    return indptr[v + 1];
  }

  @Override
  public int neighbor(long position) {
    return indices[(int) position];
  }
}
