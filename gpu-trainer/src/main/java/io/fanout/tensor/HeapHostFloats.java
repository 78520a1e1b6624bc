package io.fanout.tensor;

import java.nio.FloatBuffer;

/** {@link HostFloats} on the Java heap: the CPU backends' host buffers (nothing to pin). */
public final class HeapHostFloats implements HostFloats {
  private float[] a;
  private final FloatBuffer buf;

  public HeapHostFloats(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("host buffer length must be >= 0, got " + n);
    }
    a = new float[n];
    buf = FloatBuffer.wrap(a);
  }

  @Override
  public int length() {
    return buf.capacity();
  }

  @Override
  public FloatBuffer floats() {
    return buf;
  }

  /** The backing array; fails after {@link #close}. */
  public float[] array() {
    if (a == null) {
      throw new IllegalStateException("host buffer was closed");
    }
    return a;
  }

  @Override
  public void close() {
    a = null;
  }
}
