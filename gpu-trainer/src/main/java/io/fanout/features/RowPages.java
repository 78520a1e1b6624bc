package io.fanout.features;

import io.fanout.graph.RowDecoder;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * The cache's rows as stored on disk (encoded, {@code rowBytes} each), by slot, in heap pages of at
 * most 1 GiB that no row straddles; a row is decoded by the store's {@link RowDecoder} when it is
 * gathered. Distinct slots may be written by distinct threads at once.
 */
final class RowPages {
  private static final int PAGE_BYTES = 1 << 30;

  private final int rowBytes;
  private final int rowsPerPage;
  private final RowDecoder decoder;
  private final boolean f32;
  private final int dim;
  private final ByteBuffer[] pages;
  private final FloatBuffer[] floatPages;

  RowPages(int slots, int rowBytes, RowDecoder decoder, boolean f32, int dim) {
    this.rowBytes = rowBytes;
    this.rowsPerPage = Math.max(1, PAGE_BYTES / rowBytes);
    this.decoder = decoder;
    this.f32 = f32;
    this.dim = dim;
    int n = (int) (((long) slots + rowsPerPage - 1) / rowsPerPage);
    pages = new ByteBuffer[n];
    floatPages = new FloatBuffer[n];
    for (int p = 0; p < n; p++) {
      int rows = Math.min(rowsPerPage, slots - p * rowsPerPage);
      pages[p] = ByteBuffer.wrap(new byte[rows * rowBytes]).order(ByteOrder.LITTLE_ENDIAN);
      floatPages[p] = f32 ? pages[p].asFloatBuffer() : null;
    }
  }

  /** Copies the encoded row at {@code src[srcPos .. srcPos + rowBytes)} into {@code slot}. */
  void put(int slot, ByteBuffer src, int srcPos) {
    ByteBuffer page = pages[slot / rowsPerPage];
    src.get(srcPos, page.array(), (slot % rowsPerPage) * rowBytes, rowBytes);
  }

  /** Decodes the row in {@code slot} into {@code out[o .. o + dim)}. */
  void decode(int slot, float[] out, int o) {
    int p = slot / rowsPerPage;
    int at = (slot % rowsPerPage) * rowBytes;
    if (f32) {
      floatPages[p].get(at / 4, out, o, dim);
    } else {
      decoder.decode(pages[p], at, out, o);
    }
  }
}
