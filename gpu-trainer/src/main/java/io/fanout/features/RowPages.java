package io.fanout.features;

import io.fanout.graph.RowDecoder;
import io.fanout.tensor.PageMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * The cache's rows as stored on disk (encoded, {@code rowBytes} each), by slot, in pages of a
 * {@link PageMemory} that no row straddles; a row is decoded by the store's {@link RowDecoder} when
 * it is gathered. Slot {@code s} lies in page {@code s / rowsPerPage}. The first {@code slots}
 * slots hold the cached rows; {@link #ensureSlots} appends whole pages after them (a batch's rows
 * that are not cached, when the rows are read in place). Distinct slots may be written by distinct
 * threads at once.
 */
final class RowPages {
  private final int rowBytes;
  private final int rowsPerPage;
  private final RowDecoder decoder;
  private final boolean f32;
  private final int dim;
  private final PageMemory memory;
  private ByteBuffer[] pages;
  private FloatBuffer[] floatPages;

  /**
   * @param maxRowsPerPage a cap on a page's rows (the store's rows: no page needs more)
   */
  RowPages(
      int slots,
      int rowBytes,
      RowDecoder decoder,
      boolean f32,
      int dim,
      PageMemory memory,
      int maxRowsPerPage) {
    this.rowBytes = rowBytes;
    this.rowsPerPage =
        (int)
            Math.max(
                1, Math.min(Math.min(memory.pageBytes(), 1L << 30) / rowBytes, maxRowsPerPage));
    this.decoder = decoder;
    this.f32 = f32;
    this.dim = dim;
    this.memory = memory;
    int n = (int) (((long) slots + rowsPerPage - 1) / rowsPerPage);
    pages = new ByteBuffer[0];
    floatPages = new FloatBuffer[0];
    for (int p = 0; p < n; p++) {
      addPage(Math.min(rowsPerPage, slots - p * rowsPerPage));
    }
  }

  private void addPage(int rows) {
    int p = pages.length;
    ByteBuffer b = memory.allocate((long) p * rowsPerPage, rows * rowBytes);
    b.order(ByteOrder.LITTLE_ENDIAN);
    pages = Arrays.copyOf(pages, p + 1);
    floatPages = Arrays.copyOf(floatPages, p + 1);
    pages[p] = b;
    floatPages[p] = f32 ? b.asFloatBuffer() : null;
  }

  /** The first slot after the pages allocated so far (a multiple of the rows per page). */
  long endSlot() {
    return (long) pages.length * rowsPerPage;
  }

  /** Appends whole pages until slot {@code slots - 1} exists. */
  void ensureSlots(long slots) {
    while (slots > endSlot()) {
      if (endSlot() + rowsPerPage > Integer.MAX_VALUE) {
        throw new IllegalStateException(
            "the feature cache needs " + slots + " row slots, over 2^31");
      }
      addPage(rowsPerPage);
    }
  }

  /** Copies the encoded row at {@code src[srcPos .. srcPos + rowBytes)} into {@code slot}. */
  void put(int slot, ByteBuffer src, int srcPos) {
    pages[slot / rowsPerPage].put((slot % rowsPerPage) * rowBytes, src, srcPos, rowBytes);
  }

  /** Copies the row in slot {@code from} into slot {@code to}. */
  void copy(int from, int to) {
    put(to, pages[from / rowsPerPage], (from % rowsPerPage) * rowBytes);
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
