package io.fanout.tensor.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.JCudaDriver;

/**
 * Page-locked host memory from {@code cuMemHostAlloc}: a batch is written into it through {@link
 * #bytes()}, and a copy engine uploads it asynchronously ({@code cuMemcpyHtoDAsync} overlaps
 * compute only from pinned memory). Freed with {@code cuMemFreeHost} on {@link #close}.
 */
public final class PinnedBuffer implements AutoCloseable {
  /** {@code CU_MEMHOSTALLOC_PORTABLE}: usable from every context. */
  private static final int PORTABLE = 0x01;

  /** {@code CU_MEMHOSTALLOC_DEVICEMAP}: mapped into the device's address space (zero-copy). */
  static final int DEVICEMAP = 0x02;

  private final Pointer host;
  private final long size;
  private final ByteBuffer bytes;
  private boolean freed;

  private PinnedBuffer(Pointer host, long size) {
    this.host = host;
    this.size = size;
    this.bytes = host.getByteBuffer(0, size).order(ByteOrder.nativeOrder());
  }

  /** Allocates {@code size} bytes of pinned host memory (the context must be current). */
  public static PinnedBuffer allocate(long size) {
    return allocate(size, PORTABLE);
  }

  /** Pinned host memory that kernels can also read in place ({@code DEVICEMAP}). */
  public static PinnedBuffer allocateMapped(long size) {
    return allocate(size, PORTABLE | DEVICEMAP);
  }

  private static PinnedBuffer allocate(long size, int flags) {
    if (size <= 0 || size > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("pinned buffer size must be in (0, 2 GiB): " + size);
    }
    Pointer p = new Pointer();
    CudaDriver.check("cuMemHostAlloc", JCudaDriver.cuMemHostAlloc(p, size, flags));
    return new PinnedBuffer(p, size);
  }

  public Pointer pointer() {
    return host;
  }

  public long size() {
    return size;
  }

  /** The whole buffer, native byte order, position 0. */
  public ByteBuffer bytes() {
    return bytes.duplicate().order(ByteOrder.nativeOrder());
  }

  @Override
  public void close() {
    if (!freed) {
      freed = true;
      CudaDriver.check("cuMemFreeHost", JCudaDriver.cuMemFreeHost(host));
    }
  }
}
