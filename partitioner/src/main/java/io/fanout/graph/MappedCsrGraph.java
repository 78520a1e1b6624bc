package io.fanout.graph;

import io.fanout.store.CsrFileWriter;
import io.fanout.store.StoreLayout;

/**
 * The in-neighbor CSR of a whole store over its memory-mapped {@code csr/} part files. Positions
 * are global: partition {@code p}'s entries occupy {@code [edgeBase[p], edgeBase[p + 1])}.
 */
final class MappedCsrGraph implements CsrGraph {
  private final ChunkedMapping[] parts;
  private final long[] firstVertex;
  private final long[] edgeBase;
  private final long[] indicesOffset;
  private final RangeIndex vertexIndex;
  private final RangeIndex edgeIndex;
  private final int numVertices;
  private final long numEdges;

  MappedCsrGraph(ChunkedMapping[] parts, long[] vertexStarts, long[] edgeStarts) {
    this.parts = parts;
    this.firstVertex = vertexStarts;
    this.edgeBase = edgeStarts;
    this.indicesOffset = new long[parts.length];
    for (int p = 0; p < parts.length; p++) {
      indicesOffset[p] = CsrFileWriter.indicesOffset(vertexStarts[p + 1] - vertexStarts[p]);
    }
    this.vertexIndex = new RangeIndex(vertexStarts);
    this.edgeIndex = new RangeIndex(edgeStarts);
    this.numVertices = (int) vertexStarts[parts.length];
    this.numEdges = edgeStarts[parts.length];
  }

  @Override
  public int numVertices() {
    return numVertices;
  }

  @Override
  public long numEdges() {
    return numEdges;
  }

  @Override
  public long rowStart(int v) {
    return pointer(v, 0);
  }

  @Override
  public long rowEnd(int v) {
    return pointer(v, 1);
  }

  private long pointer(int v, int plus) {
    if (Checks.ENABLED && (v < 0 || v >= numVertices)) {
      throw new IndexOutOfBoundsException("vertex " + v + " outside 0.." + (numVertices - 1));
    }
    int p = vertexIndex.find(v);
    long row = v - firstVertex[p] + plus;
    return edgeBase[p] + parts[p].getLong(StoreLayout.HEADER_BYTES + 8 * row);
  }

  @Override
  public int neighbor(long position) {
    if (Checks.ENABLED && (position < 0 || position >= numEdges)) {
      throw new IndexOutOfBoundsException(
          "edge position " + position + " outside 0.." + (numEdges - 1));
    }
    int p = edgeIndex.find(position);
    return parts[p].getInt(indicesOffset[p] + 4 * (position - edgeBase[p]));
  }
}
