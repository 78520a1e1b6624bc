package io.fanout.tensor;

/** Grow-only backend tensors, reused across batches. */
public final class TensorBufs {
  private TensorBufs() {}

  /** The capacity to allocate for {@code n} elements when {@code have} do not suffice. */
  static int capacity(long n, int have) {
    if (n > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("tensor of " + n + " elements exceeds one buffer");
    }
    return (int) Math.min(Integer.MAX_VALUE - 8, Math.max(n, have * 3L / 2));
  }

  /** {@code t} when it holds {@code n} elements, else a larger tensor ({@code t} is freed). */
  public static FloatTensor ensure(Backend be, FloatTensor t, long n) {
    if (t != null && t.length() >= n) {
      return t;
    }
    int cap = capacity(n, t == null ? 0 : t.length());
    if (t != null) {
      be.free(t);
    }
    return be.allocFloat(cap);
  }

  /** {@code t} when it holds {@code n} elements, else a larger tensor ({@code t} is freed). */
  public static IntTensor ensure(Backend be, IntTensor t, long n) {
    if (t != null && t.length() >= n) {
      return t;
    }
    int cap = capacity(n, t == null ? 0 : t.length());
    if (t != null) {
      be.free(t);
    }
    return be.allocInt(cap);
  }

  /** Frees {@code t} unless it is null. */
  public static void free(Backend be, Tensor t) {
    if (t != null) {
      be.free(t);
    }
  }
}
