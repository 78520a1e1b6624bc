package io.fanout.tensor.cuda;

import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.PageTable;
import io.fanout.tensor.PagedFeatureRows;
import io.fanout.tensor.RowEncoding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/**
 * A feature cache's pages in mapped pinned host memory ({@code cuMemHostAlloc(DEVICEMAP)}): the
 * cache's I/O threads read rows from disk straight into them, and {@link #gather} runs the
 * decode-gather kernels of {@link KernelFeatureRows} over the slots, so the rows cross the bus
 * encoded, once, and the host neither gathers nor uploads them (PyTorch-Direct's access path, fed
 * by Ginex's cache). Pages may be added from another thread (the cache's loader) while the trainer
 * gathers: the kernel's page table is rebuilt at the next gather.
 */
final class PinnedFeaturePages implements PagedFeatureRows {
  /** Bytes of a page (a pinned allocation must stay under 2 GiB). */
  static final long PAGE_BYTES = 64L << 20;

  private final CudaBackend be;
  private final RowEncoding encoding;
  private final long pageBytes;
  private final PageTable pageTable;
  private final List<PinnedBuffer> buffers = new ArrayList<>();
  private long[] bases = new long[0];
  private KernelFeatureRows table;
  private boolean stale = true;
  private boolean closed;

  PinnedFeaturePages(CudaBackend be, RowEncoding encoding, long pageBytes) {
    this.be = be;
    this.encoding = encoding;
    this.pageBytes = pageBytes;
    this.pageTable = new PageTable(encoding.rowBytes());
  }

  @Override
  public long pageBytes() {
    return pageBytes;
  }

  /** Pinned host memory, off the Java heap. */
  @Override
  public boolean onHeap() {
    return false;
  }

  @Override
  public synchronized ByteBuffer allocate(long firstSlot, int bytes) {
    if (closed) {
      throw new IllegalStateException("feature pages were closed");
    }
    pageTable.checkNext(firstSlot); // before anything is allocated
    be.current(); // the cache's loader thread may allocate
    PinnedBuffer b = PinnedBuffer.allocateMapped(bytes);
    long base;
    try {
      CUdeviceptr dev = new CUdeviceptr();
      CudaDriver.check(
          "cuMemHostGetDevicePointer", JCudaDriver.cuMemHostGetDevicePointer(dev, b.pointer(), 0));
      base = CudaDriver.address(dev);
    } catch (RuntimeException e) {
      b.close();
      throw e;
    }
    buffers.add(b);
    int p = pageTable.add(firstSlot, bytes);
    bases = Arrays.copyOf(bases, p + 1);
    bases[p] = base;
    stale = true; // the kernel's page table is rebuilt at the next gather
    return b.bytes().order(ByteOrder.LITTLE_ENDIAN);
  }

  @Override
  public int dim() {
    return encoding.dim();
  }

  @Override
  public synchronized long numRows() {
    return pageTable.slots();
  }

  @Override
  public synchronized void gather(
      IntTensor ids, int idsOff, int rows, FloatTensor out, int outOff) {
    if (closed) {
      throw new IllegalStateException("feature pages were closed");
    }
    if (rows == 0) {
      return;
    }
    if (stale) {
      if (table != null) {
        KernelFeatureRows old = table;
        table = null;
        old.close();
      }
      table =
          KernelFeatureRows.ofAddresses(be, encoding, bases, pageTable.firsts(), pageTable.slots());
      stale = false;
    }
    table.gather(ids, idsOff, rows, out, outOff);
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    NativeCleanup c = new NativeCleanup();
    if (table != null) {
      KernelFeatureRows t = table;
      table = null;
      c.close(t);
    }
    for (PinnedBuffer b : buffers) {
      c.close(b);
    }
    buffers.clear();
    c.rethrow();
  }
}
