package io.fanout.nn;

/** Grow-only host scratch arrays, reused across batches. */
final class Bufs {
  private Bufs() {}

  static float[] ensure(float[] a, long n) {
    if (n > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("tensor of " + n + " floats exceeds one array");
    }
    if (a != null && a.length >= n) {
      return a;
    }
    int cap = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(n, a == null ? 0 : a.length * 3L / 2));
    return new float[cap];
  }
}
