package io.fanout.tensor;

/**
 * Finds the non-zero elements of float rows a vector at a time, for bag-of-words features with ~1%
 * non-zeros: most vectors hold none and are passed over with one compare. "Non-zero" is {@code x !=
 * 0f}, as in a scalar loop: {@code -0f} counts as zero and NaN as non-zero. Uses the Vector API
 * when the {@code jdk.incubator.vector} module is present (and {@code -Dfanout.cpu.vector} is not
 * {@code false}), else the scalar loop; both return the same index.
 */
public final class NonZeroScan {
  /** Ranges shorter than this are scanned by the scalar loop. */
  static final int VECTOR_MIN = 64;

  static final boolean VECTOR = CpuDropout.VECTOR_DROPOUT && VectorNonZeroScan.usable();

  private NonZeroScan() {}

  /** The first {@code i} in {@code [from, end)} with {@code x[i] != 0f}, or {@code end}. */
  public static int next(float[] x, int from, int end) {
    return next(x, from, end, VECTOR);
  }

  static int next(float[] x, int from, int end, boolean vector) {
    int i = from;
    if (vector && end - i >= VECTOR_MIN) {
      i = VectorNonZeroScan.skipZeros(x, i, end);
    }
    for (; i < end; i++) {
      if (x[i] != 0f) {
        return i;
      }
    }
    return end;
  }
}
