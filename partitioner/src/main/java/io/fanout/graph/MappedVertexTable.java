package io.fanout.graph;

import io.fanout.store.NodesFileWriter;
import io.fanout.store.StoreLayout;

/** Labels and splits over the memory-mapped {@code nodes/} part files. */
final class MappedVertexTable implements VertexTable {
  private final ChunkedMapping[] parts;
  private final long[] firstVertex;
  private final long[] splitsOffset;
  private final RangeIndex vertexIndex;
  private final int numVertices;

  MappedVertexTable(ChunkedMapping[] parts, long[] vertexStarts) {
    this.parts = parts;
    this.firstVertex = vertexStarts;
    this.splitsOffset = new long[parts.length];
    for (int p = 0; p < parts.length; p++) {
      splitsOffset[p] = NodesFileWriter.splitsOffset(vertexStarts[p + 1] - vertexStarts[p]);
    }
    this.vertexIndex = new RangeIndex(vertexStarts);
    this.numVertices = (int) vertexStarts[vertexStarts.length - 1];
  }

  @Override
  public int numVertices() {
    return numVertices;
  }

  @Override
  public int label(int v) {
    check(v);
    int p = vertexIndex.find(v);
    return parts[p].getInt(StoreLayout.HEADER_BYTES + 4 * (v - firstVertex[p]));
  }

  @Override
  public byte split(int v) {
    check(v);
    int p = vertexIndex.find(v);
    return parts[p].get(splitsOffset[p] + (v - firstVertex[p]));
  }

  private void check(int v) {
    if (Checks.ENABLED && (v < 0 || v >= numVertices)) {
      throw new IndexOutOfBoundsException("vertex " + v + " outside 0.." + (numVertices - 1));
    }
  }
}
