package io.fanout.graph;

import io.fanout.store.StoreLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Feature rows over the memory-mapped {@code features/} part files, decoded by the store's {@link
 * RowDecoder} straight into the caller's buffer: f32 rows are copied in bulk, encoded rows are
 * decoded where they lie in the mapping (a row crossing a 1 GiB chunk boundary goes through a
 * per-thread scratch row). Ids are mapped to rows through the store's {@link FeatureRowOrder}.
 */
final class MappedFeatureTable implements FeatureTable {
  private final ChunkedMapping[] parts;
  private final long[] firstVertex;
  private final RangeIndex vertexIndex;
  private final int numVertices;
  private final int dim;
  private final RowDecoder decoder;
  private final boolean f32;
  private final int rowBytes;
  private final ThreadLocal<ByteBuffer> scratch;
  private final FeatureRowOrder order;

  /**
   * @param parts null when {@code dim == 0}
   * @param decoder null when {@code dim == 0}
   */
  MappedFeatureTable(
      ChunkedMapping[] parts,
      long[] vertexStarts,
      int dim,
      RowDecoder decoder,
      boolean f32,
      FeatureRowOrder order) {
    this.order = order;
    this.parts = parts;
    this.firstVertex = vertexStarts;
    this.vertexIndex = new RangeIndex(vertexStarts);
    this.numVertices = (int) vertexStarts[vertexStarts.length - 1];
    this.dim = dim;
    this.decoder = decoder;
    this.f32 = f32;
    this.rowBytes = decoder == null ? 0 : decoder.rowBytes();
    this.scratch =
        ThreadLocal.withInitial(() -> ByteBuffer.allocate(rowBytes).order(ByteOrder.LITTLE_ENDIAN));
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
  public RowDecoder decoder() {
    return decoder;
  }

  @Override
  public void gatherEncoded(int[] ids, int from, int count, byte[] out, int outOffset) {
    if (dim == 0) {
      return;
    }
    for (int i = 0; i < count; i++) {
      int v = ids[from + i];
      if (Checks.ENABLED && (v < 0 || v >= numVertices)) {
        throw new IndexOutOfBoundsException("vertex " + v + " outside 0.." + (numVertices - 1));
      }
      int r = order.position(v);
      int p = vertexIndex.find(r);
      long pos = StoreLayout.HEADER_BYTES + (r - firstVertex[p]) * rowBytes;
      parts[p].getBytes(pos, out, outOffset + i * rowBytes, rowBytes);
    }
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
      int r = order.position(v);
      int p = vertexIndex.find(r);
      long pos = StoreLayout.HEADER_BYTES + (r - firstVertex[p]) * rowBytes;
      int o = outOffset + i * dim;
      ChunkedMapping m = parts[p];
      if (f32) {
        m.getFloats(pos, out, o, dim);
        continue;
      }
      ByteBuffer chunk = m.chunkHolding(pos, rowBytes);
      if (chunk != null) {
        decoder.decode(chunk, m.offsetIn(pos), out, o);
      } else {
        ByteBuffer row = scratch.get();
        m.getBytes(pos, row.array(), 0, rowBytes);
        decoder.decode(row, 0, out, o);
      }
    }
  }
}
