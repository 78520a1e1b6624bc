package io.fanout.store;

/** IEEE 754 binary16 conversions (Java 17 has no {@code Float.floatToFloat16}). */
public final class Half {
  private Half() {}

  /** Rounds {@code f} to the nearest binary16, ties to even; overflow gives infinity. */
  public static short fromFloat(float f) {
    int bits = Float.floatToRawIntBits(f);
    int sign = (bits >>> 16) & 0x8000;
    int exp = (bits >>> 23) & 0xff;
    int mant = bits & 0x7fffff;
    if (exp == 0xff) {
      // Inf or NaN; keep NaNs quiet and non-zero.
      return (short) (sign | 0x7c00 | (mant != 0 ? 0x200 | (mant >>> 13) : 0));
    }
    int e = exp - 127 + 15;
    if (e >= 0x1f) {
      return (short) (sign | 0x7c00);
    }
    if (e <= 0) {
      if (e < -10) {
        return (short) sign;
      }
      // Subnormal half: shift the mantissa with its implicit bit, round to nearest even.
      int m = mant | 0x800000;
      int shift = 14 - e;
      int half = m >>> shift;
      int rem = m & ((1 << shift) - 1);
      int mid = 1 << (shift - 1);
      if (rem > mid || (rem == mid && (half & 1) != 0)) {
        half++;
      }
      return (short) (sign | half);
    }
    int h = (e << 10) | (mant >>> 13);
    int rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1) != 0)) {
      h++; // may carry into the exponent, up to infinity, which is correct
    }
    return (short) (sign | h);
  }

  /** The exact float value of binary16 {@code h}. */
  public static float toFloat(short h) {
    int bits = h & 0xffff;
    int sign = (bits & 0x8000) << 16;
    int exp = (bits >>> 10) & 0x1f;
    int mant = bits & 0x3ff;
    if (exp == 0x1f) {
      return Float.intBitsToFloat(sign | 0x7f800000 | (mant << 13));
    }
    if (exp == 0) {
      if (mant == 0) {
        return Float.intBitsToFloat(sign);
      }
      // Subnormal: value = mant * 2^-24.
      float v = mant * 0x1p-24f;
      return sign != 0 ? -v : v;
    }
    return Float.intBitsToFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
  }
}
