package io.fanout.tensor;

/**
 * Dropout on the CPU: counter-based hashes of (key, position) decide each element, on the Vector
 * API ({@link VectorDropout}) or in scalar loops with the same bits; the backward replays a
 * recorded keep mask, and the CSR variant drops a sparse matrix's values.
 */
final class CpuDropout {
  /**
   * Whether dropout runs on the Vector API ({@link VectorDropout}): the {@code
   * jdk.incubator.vector} module is present (bin/fanout and the tests add it), the machine has
   * vectors of at least 4 longs, and {@code -Dfanout.cpu.vector} is not {@code false}.
   */
  static final boolean VECTOR_DROPOUT = vectorDropout();

  private static boolean vectorDropout() {
    if (!Boolean.parseBoolean(System.getProperty("fanout.cpu.vector", "true"))
        || ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
      return false;
    }
    try {
      return VectorDropout.usable();
    } catch (LinkageError e) {
      return false;
    }
  }

  private CpuDropout() {}

  static void dropout(float[] x, int off, int n, float p, long key) {
    dropout(x, off, x, off, n, p, key, null);
  }

  /**
   * {@code dst[dstOff + i] = dropout(src[srcOff + i])} for {@code i < n} (in place when the two
   * coincide); when {@code keep} is non-null, bit {@code i % 32} of {@code keep[i / 32]} records
   * whether element {@code i} was kept, for {@link #dropoutBackward}. With {@link #VECTOR_DROPOUT}
   * the hashes are computed a vector at a time ({@link VectorDropout}), with the same results.
   */
  static void dropout(
      float[] src, int srcOff, float[] dst, int dstOff, int n, float p, long key, int[] keep) {
    dropout(src, srcOff, dst, dstOff, n, p, key, keep, VECTOR_DROPOUT && n >= VECTOR_MIN);
  }

  /**
   * Shorter dropouts run the scalar loop: until the JIT has compiled {@link VectorDropout}, its
   * vectors are objects, far slower than the scalar loop (small test batches never warm it up).
   */
  static final int VECTOR_MIN = 1 << 15;

  /** As above, on the Vector API or not: the two give the same bits (tested). */
  static void dropout(
      float[] src,
      int srcOff,
      float[] dst,
      int dstOff,
      int n,
      float p,
      long key,
      int[] keep,
      boolean vector) {
    if (p <= 0f) {
      if (src != dst || srcOff != dstOff) {
        System.arraycopy(src, srcOff, dst, dstOff, n);
      }
      return;
    }
    float scale = 1f / (1f - p);
    // CounterRng.uniform(key, i) < p  <=>  its 24 hash bits < ceil(p * 2^24): an integer test.
    long threshold = (long) Math.ceil(p * 16777216.0);
    int words = (n + 31) >>> 5;
    // Split by 32-element words so that no two threads write the same mask word.
    ColumnParallel.run(
        n,
        words,
        (w0, w1) -> {
          int end = Math.min(n, w1 << 5);
          if (vector) {
            if (keep == null) {
              int done =
                  VectorDropout.apply(
                      src, srcOff, dst, dstOff, w0 << 5, end, key, threshold, scale);
              dropoutRange(src, srcOff, dst, dstOff, done, end, key, threshold, scale, null);
              return;
            }
            int full = Math.min(w1, n >>> 5);
            VectorDropout.applyMasked(
                src, srcOff, dst, dstOff, w0, full, key, threshold, scale, keep);
            w0 = full;
          }
          dropoutRange(src, srcOff, dst, dstOff, w0 << 5, end, key, threshold, scale, keep);
        });
  }

  /** The scalar dropout of positions {@code i0 <= i < i1}, {@code i0} a multiple of 32. */
  private static void dropoutRange(
      float[] src,
      int srcOff,
      float[] dst,
      int dstOff,
      int i0,
      int i1,
      long key,
      long threshold,
      float scale,
      int[] keep) {
    for (int w0 = i0; w0 < i1; w0 += 32) {
      int w1 = Math.min(i1, w0 + 32);
      int bits = 0;
      for (int i = w0; i < w1; i++) {
        // Branch-free (the mask is a coin flip, so a branch mispredicts half the time): all ones
        // when dropped; a dropped element becomes +0f.
        int drop = (int) (((CounterRng.bits24(key, i)) - threshold) >> 63);
        float v = src[srcOff + i] * scale;
        dst[dstOff + i] = Float.intBitsToFloat(Float.floatToRawIntBits(v) & ~drop);
        bits |= (~drop & 1) << (i - w0);
      }
      if (keep != null) {
        keep[w0 >>> 5] = bits;
      }
    }
  }

  /**
   * The backward of a {@link #dropout} that recorded {@code keep}: the same result as repeating
   * that dropout on {@code g} with its key, without hashing the positions again.
   */
  static void dropoutBackward(float[] g, int off, int n, float p, int[] keep) {
    if (p <= 0f) {
      return;
    }
    float scale = 1f / (1f - p);
    int words = (n + 31) >>> 5;
    ColumnParallel.run(
        n,
        words,
        (w0, w1) -> {
          int end = Math.min(n, w1 << 5);
          for (int w = w0; w < w1; w++) {
            int i0 = w << 5;
            int i1 = Math.min(end, i0 + 32);
            int bits = keep[w];
            for (int i = i0; i < i1; i++) {
              int drop = (bits >>> (i - i0) & 1) - 1;
              float v = g[off + i] * scale;
              g[off + i] = Float.intBitsToFloat(Float.floatToRawIntBits(v) & ~drop);
            }
          }
        });
  }

  static void dropoutCsr(int[] ptr, int[] col, float[] val, int rows, int cols, float p, long key) {
    if (p <= 0f) {
      return;
    }
    float scale = 1f / (1f - p);
    for (int r = 0; r < rows; r++) {
      long base = (long) r * cols;
      for (int q = ptr[r]; q < ptr[r + 1]; q++) {
        val[q] = CounterRng.uniform(key, base + col[q]) < p ? 0f : val[q] * scale;
      }
    }
  }
}
