package io.fanout.tensor;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * {@link PagedFeatureRows} of the CPU backend: heap pages, rows decoded by the store's decoder
 * ({@link HostRowDecoder}) straight into the output tensor.
 */
final class HeapFeaturePages implements PagedFeatureRows {
  private final HostRowDecoder decoder;
  private final int dim;
  private final int rowBytes;
  private final long pageBytes;
  private final PageTable table;
  private ByteBuffer[] pages = new ByteBuffer[0];
  private boolean closed;

  HeapFeaturePages(RowEncoding encoding, HostRowDecoder decoder, long pageBytes) {
    this.decoder = decoder;
    this.dim = encoding.dim();
    this.rowBytes = encoding.rowBytes();
    this.pageBytes = pageBytes;
    this.table = new PageTable(rowBytes);
  }

  @Override
  public long pageBytes() {
    return pageBytes;
  }

  @Override
  public synchronized ByteBuffer allocate(long firstSlot, int bytes) {
    int p = table.add(firstSlot, bytes);
    ByteBuffer b = ByteBuffer.wrap(new byte[bytes]).order(ByteOrder.LITTLE_ENDIAN);
    pages = Arrays.copyOf(pages, p + 1);
    pages[p] = b;
    return b;
  }

  @Override
  public int dim() {
    return dim;
  }

  @Override
  public synchronized long numRows() {
    return table.slots();
  }

  @Override
  public synchronized void gather(
      IntTensor ids, int idsOff, int rows, FloatTensor out, int outOff) {
    if (closed) {
      throw new IllegalStateException("feature pages were closed");
    }
    int[] id = CpuBackend.i(ids);
    float[] x = CpuBackend.f(out);
    MappedFeatureRows.checkGather(id, idsOff, rows, x, outOff, dim);
    for (int i = 0; i < rows; i++) {
      int slot = id[idsOff + i];
      int p = table.pageOf(slot);
      long at = (slot - table.first(p)) * rowBytes;
      if (at + rowBytes > pages[p].capacity()) {
        throw new IndexOutOfBoundsException("slot " + slot + " lies in no allocated page");
      }
      decoder.decode(pages[p], (int) at, x, outOff + i * dim);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    pages = new ByteBuffer[0];
  }
}
