package io.fanout.graph;

import io.fanout.store.Half;
import java.nio.ByteBuffer;

/** {@code f16} rows: IEEE half precision, widened exactly. */
final class F16RowDecoder implements RowDecoder {
  private final int dim;

  F16RowDecoder(int dim) {
    this.dim = dim;
  }

  @Override
  public int rowBytes() {
    return 2 * dim;
  }

  @Override
  public void decode(ByteBuffer rows, int pos, float[] dst, int dstOff) {
    for (int c = 0; c < dim; c++) {
      dst[dstOff + c] = Half.toFloat(rows.getShort(pos + 2 * c));
    }
  }
}
