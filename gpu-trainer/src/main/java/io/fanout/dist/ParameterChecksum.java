package io.fanout.dist;

/** A 64-bit hash of the exact bit patterns of a float buffer, to compare replicas. */
public final class ParameterChecksum {
  private ParameterChecksum() {}

  /** Hash of {@code values[0 .. length)}; equal iff (with overwhelming probability) bit-equal. */
  public static long of(float[] values, int length) {
    long h = 0x9E3779B97F4A7C15L ^ length;
    for (int i = 0; i < length; i++) {
      h = mix(h ^ (Float.floatToRawIntBits(values[i]) & 0xFFFFFFFFL) ^ ((long) i << 32));
    }
    return h;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
