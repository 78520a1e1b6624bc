package io.fanout.tensor;

import java.nio.FloatBuffer;
import java.nio.IntBuffer;

/**
 * Copies of large host arrays into direct (pinned) buffers, split over the CPU backend's threads: a
 * products-size batch's features are 220 MB, which one thread copies at a fraction of the memory
 * bandwidth. Copies below a million elements run on the calling thread.
 */
public final class HostCopies {
  private HostCopies() {}

  /** {@code dst[at .. at + len) = src[off .. off + len)}, by absolute index. */
  public static void put(FloatBuffer dst, int at, float[] src, int off, int len) {
    ColumnParallel.run(len, len, (c0, c1) -> dst.duplicate().put(at + c0, src, off + c0, c1 - c0));
  }

  /** {@code dst[at .. at + len) = src[off .. off + len)}, by absolute index. */
  public static void put(IntBuffer dst, int at, int[] src, int off, int len) {
    ColumnParallel.run(len, len, (c0, c1) -> dst.duplicate().put(at + c0, src, off + c0, c1 - c0));
  }
}
