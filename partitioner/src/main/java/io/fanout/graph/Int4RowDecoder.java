package io.fanout.graph;

import io.fanout.store.FeatureParams;
import java.nio.ByteBuffer;

/** {@code int4} rows: {@code offset[c] + scale[c] * q}, two columns per byte, low nibble first. */
final class Int4RowDecoder implements RowDecoder {
  private final int dim;
  private final float[] scale;
  private final float[] offset;

  Int4RowDecoder(FeatureParams p) {
    this.dim = p.dim;
    this.scale = p.scale();
    this.offset = p.offset();
  }

  @Override
  public int rowBytes() {
    return (dim + 1) / 2;
  }

  @Override
  public void decode(ByteBuffer rows, int pos, float[] dst, int dstOff) {
    int c = 0;
    for (; c + 1 < dim; c += 2) {
      int b = rows.get(pos + (c >>> 1));
      dst[dstOff + c] = offset[c] + scale[c] * (b & 0xf);
      dst[dstOff + c + 1] = offset[c + 1] + scale[c + 1] * ((b >>> 4) & 0xf);
    }
    if (c < dim) {
      dst[dstOff + c] = offset[c] + scale[c] * (rows.get(pos + (c >>> 1)) & 0xf);
    }
  }
}
