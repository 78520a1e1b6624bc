package io.fanout.tensor;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Where a feature cache keeps its encoded rows: pages of at most {@link #pageBytes} bytes, each
 * holding a run of slots. {@link #HEAP} gives heap pages; a backend that reads rows in place gives
 * memory its kernels can address (on a GPU, mapped pinned host memory, so the device reads the
 * cached rows over the bus and the host never gathers them).
 */
public interface PageMemory {
  /** Bytes of one page at most; a page holds {@code pageBytes / rowBytes} whole rows. */
  long pageBytes();

  /**
   * A little-endian buffer of {@code bytes} bytes (contents undefined) that will hold the rows of
   * the slots from {@code firstSlot} on; it stays valid until this memory is closed by its owner.
   */
  ByteBuffer allocate(long firstSlot, int bytes);

  /** Whether the pages take Java heap (what {@code train}'s heap check counts). */
  default boolean onHeap() {
    return true;
  }

  /** Heap pages of up to 1 GiB. */
  PageMemory HEAP =
      new PageMemory() {
        @Override
        public long pageBytes() {
          return 1L << 30;
        }

        @Override
        public ByteBuffer allocate(long firstSlot, int bytes) {
          return ByteBuffer.wrap(new byte[bytes]).order(ByteOrder.LITTLE_ENDIAN);
        }
      };
}
