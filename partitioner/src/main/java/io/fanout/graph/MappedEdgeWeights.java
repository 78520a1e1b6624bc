package io.fanout.graph;

import io.fanout.store.StoreLayout;

/**
 * The edge weights of a whole store over its memory-mapped {@code weights/} part files, by the
 * global positions of {@link MappedCsrGraph}: partition {@code p}'s entries occupy {@code
 * [edgeBase[p], edgeBase[p + 1])}.
 */
final class MappedEdgeWeights implements EdgeWeights {
  private final ChunkedMapping[] parts;
  private final long[] edgeBase;
  private final RangeIndex edgeIndex;

  MappedEdgeWeights(ChunkedMapping[] parts, long[] edgeStarts) {
    this.parts = parts;
    this.edgeBase = edgeStarts;
    this.edgeIndex = new RangeIndex(edgeStarts);
  }

  @Override
  public float weight(long position) {
    if (Checks.ENABLED && (position < 0 || position >= edgeBase[parts.length])) {
      throw new IndexOutOfBoundsException(
          "edge position " + position + " outside 0.." + (edgeBase[parts.length] - 1));
    }
    int p = edgeIndex.find(position);
    return parts[p].getFloat(StoreLayout.HEADER_BYTES + 4 * (position - edgeBase[p]));
  }

  /** One partition lookup and a bulk copy: a row lies within one partition's file. */
  @Override
  public void copy(long start, float[] dst, int off, int len) {
    if (len == 0) {
      return;
    }
    int p = edgeIndex.find(start);
    if (start + len > edgeBase[p + 1]) {
      EdgeWeights.super.copy(start, dst, off, len); // spans partitions: not a row
      return;
    }
    parts[p].getFloats(StoreLayout.HEADER_BYTES + 4 * (start - edgeBase[p]), dst, off, len);
  }
}
