package io.fanout.graph;

import java.nio.ByteBuffer;

/** {@code f32} rows: the values as stored. */
final class F32RowDecoder implements RowDecoder {
  private final int dim;

  F32RowDecoder(int dim) {
    this.dim = dim;
  }

  @Override
  public int rowBytes() {
    return 4 * dim;
  }

  @Override
  public void decode(ByteBuffer rows, int pos, float[] dst, int dstOff) {
    for (int c = 0; c < dim; c++) {
      dst[dstOff + c] = rows.getFloat(pos + 4 * c);
    }
  }
}
