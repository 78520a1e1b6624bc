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
}
