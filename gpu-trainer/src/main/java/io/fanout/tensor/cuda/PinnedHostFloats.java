package io.fanout.tensor.cuda;

import io.fanout.tensor.HostFloats;
import java.nio.FloatBuffer;

/**
 * {@link HostFloats} in page-locked memory ({@code cuMemHostAlloc}), so that device copies to and
 * from it run by DMA at full bus speed without a staging copy: the buffer data-parallel training
 * exchanges gradients through.
 */
final class PinnedHostFloats implements HostFloats {
  private final CudaBackend owner;
  private final PinnedBuffer pinned;
  private final FloatBuffer floats;
  private final int length;
  private boolean closed;

  PinnedHostFloats(CudaBackend owner, int n) {
    if (n < 0) {
      throw new IllegalArgumentException("host buffer length must be >= 0, got " + n);
    }
    this.owner = owner;
    this.length = n;
    this.pinned = PinnedBuffer.allocate(4L * Math.max(n, 1));
    this.floats = pinned.bytes().asFloatBuffer();
  }

  CudaBackend owner() {
    return owner;
  }

  /** The pinned host address of element {@code off}; fails when closed or out of range. */
  jcuda.Pointer at(int off, int n) {
    if (closed) {
      throw new IllegalStateException("pinned host buffer was closed");
    }
    if (off < 0 || n < 0 || (long) off + n > length) {
      throw new IndexOutOfBoundsException(
          "range [" + off + ", " + ((long) off + n) + ") outside a host buffer of " + length);
    }
    return pinned.pointer().withByteOffset(4L * off);
  }

  @Override
  public int length() {
    return length;
  }

  @Override
  public FloatBuffer floats() {
    if (closed) {
      throw new IllegalStateException("pinned host buffer was closed");
    }
    return floats;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      pinned.close();
    }
  }
}
