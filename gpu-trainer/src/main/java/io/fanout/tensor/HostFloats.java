package io.fanout.tensor;

import java.nio.FloatBuffer;

/**
 * A host buffer of floats that a backend moves to and from its tensors ({@link
 * Backend#download(FloatTensor, int, HostFloats, int, int)}, {@link Backend#upload(HostFloats, int,
 * FloatTensor, int, int)}), allocated by {@link Backend#allocHostFloats}: page-locked memory on a
 * GPU (so the copies run at full bus speed), the heap on the CPU. Data-parallel training exchanges
 * gradients through one: device, this buffer, the all-reduce, device. Close it when done (native
 * memory on a GPU).
 */
public interface HostFloats extends AutoCloseable {
  /** Elements in the buffer. */
  int length();

  /**
   * The buffer's floats, {@link #length()} of them, for absolute-index reads and writes; valid
   * until {@link #close}.
   */
  FloatBuffer floats();

  /** Releases the memory; a no-op the second time. */
  @Override
  void close();
}
