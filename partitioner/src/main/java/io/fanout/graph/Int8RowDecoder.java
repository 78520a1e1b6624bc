package io.fanout.graph;

import io.fanout.store.FeatureParams;
import java.nio.ByteBuffer;

/** {@code int8} rows: {@code offset[c] + scale[c] * q}, one unsigned byte per column. */
final class Int8RowDecoder implements RowDecoder {
  private final int dim;
  private final float[] scale;
  private final float[] offset;

  Int8RowDecoder(FeatureParams p) {
    this.dim = p.dim;
    this.scale = p.scale();
    this.offset = p.offset();
  }

  @Override
  public int rowBytes() {
    return dim;
  }

  @Override
  public void decode(ByteBuffer rows, int pos, float[] dst, int dstOff) {
    for (int c = 0; c < dim; c++) {
      dst[dstOff + c] = offset[c] + scale[c] * (rows.get(pos + c) & 0xff);
    }
  }
}
