package io.fanout.graph;

import io.fanout.store.FeatureParams;
import java.nio.ByteBuffer;

/** {@code pq} rows: one byte per column group, the index of the group's centroid, copied out. */
final class PqRowDecoder implements RowDecoder {
  private final int dim;
  private final int groupSize;
  private final int groups;
  private final int centroids;
  private final float[] codebooks;

  PqRowDecoder(FeatureParams p) {
    this.dim = p.dim;
    this.groupSize = p.groupSize;
    this.groups = p.groups();
    this.centroids = p.centroids;
    this.codebooks = p.codebooks();
  }

  @Override
  public int rowBytes() {
    return groups;
  }

  @Override
  public void decode(ByteBuffer rows, int pos, float[] dst, int dstOff) {
    for (int g = 0; g < groups; g++) {
      int col = g * groupSize;
      int w = Math.min(groupSize, dim - col);
      int code = rows.get(pos + g) & 0xff;
      System.arraycopy(codebooks, centroids * col + code * w, dst, dstOff + col, w);
    }
  }
}
