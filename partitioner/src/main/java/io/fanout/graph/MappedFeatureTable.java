package io.fanout.graph;

import io.fanout.store.StoreLayout;

/** f32 feature rows over the memory-mapped {@code features/} part files. */
final class MappedFeatureTable implements FeatureTable {
  private final ChunkedMapping[] parts;
  private final long[] firstVertex;
  private final RangeIndex vertexIndex;
  private final int numVertices;
  private final int dim;
  private final long rowBytes;

  /**
   * @param parts null when {@code dim == 0}
   */
  MappedFeatureTable(ChunkedMapping[] parts, long[] vertexStarts, int dim) {
    this.parts = parts;
    this.firstVertex = vertexStarts;
    this.vertexIndex = new RangeIndex(vertexStarts);
    this.numVertices = (int) vertexStarts[vertexStarts.length - 1];
    this.dim = dim;
    this.rowBytes = 4L * dim;
  }

  @Override
  public int numVertices() {
    return numVertices;
  }

  @Override
  public int dim() {
    return dim;
  }

  @Override
  public void gather(int[] ids, int from, int count, float[] out, int outOffset) {
    if (dim == 0) {
      return;
    }
    for (int i = 0; i < count; i++) {
      int v = ids[from + i];
      if (Checks.ENABLED && (v < 0 || v >= numVertices)) {
        throw new IndexOutOfBoundsException("vertex " + v + " outside 0.." + (numVertices - 1));
      }
      int p = vertexIndex.find(v);
      long pos = StoreLayout.HEADER_BYTES + (v - firstVertex[p]) * rowBytes;
      parts[p].getFloats(pos, out, outOffset + i * dim, dim);
    }
  }
}
