package io.fanout.tensor;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * Dropout with the Vector API: the counter hash of {@link CounterRng#bits24} computed for a vector
 * of positions at once (64-bit lanes), the keep test and the scaling applied to the matching float
 * lanes. Integer arithmetic is exact and the float product is the same single multiply, so every
 * output (and mask bit) is the bit-for-bit value of the scalar loop in {@link CpuDropout#dropout};
 * {@code VectorDropoutTest} checks it. Loaded only when the {@code jdk.incubator.vector} module is
 * present ({@link CpuDropout#VECTOR_DROPOUT}).
 */
final class VectorDropout {
  private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
  private static final VectorSpecies<Float> F =
      VectorSpecies.of(float.class, VectorShape.forBitSize(L.vectorBitSize() / 2));
  private static final VectorSpecies<Integer> I =
      VectorSpecies.of(int.class, VectorShape.forBitSize(L.vectorBitSize() / 2));

  /** Lanes per vector; a mask word of 32 elements is a whole number of vectors. */
  static final int LANES = L.length();

  private static final long GOLDEN = 0x9e3779b97f4a7c15L;
  private static final long M1 = 0xBF58476D1CE4E5B9L;
  private static final long M2 = 0x94D049BB133111EBL;
  private static final LongVector IOTA = LongVector.zero(L).addIndex(1);
  private static final IntVector LANE_BITS = laneBits();

  private VectorDropout() {}

  private static IntVector laneBits() {
    int[] b = new int[LANES];
    for (int t = 0; t < LANES; t++) {
      b[t] = 1 << t;
    }
    return IntVector.fromArray(I, b, 0);
  }

  /** Whether this machine's preferred vectors suit the kernels (at least 4 long lanes). */
  static boolean usable() {
    return LANES >= 4 && 32 % LANES == 0;
  }

  /**
   * {@code dst[dstOff + i] = dropout(src[srcOff + i])} for positions {@code i0 <= i < i1}, whole
   * vectors only; returns the first position not done (the caller finishes the tail).
   */
  static int apply(
      float[] src,
      int srcOff,
      float[] dst,
      int dstOff,
      int i0,
      int i1,
      long key,
      long threshold,
      float scale) {
    int i = i0;
    for (int bound = i1 - LANES; i <= bound; i += LANES) {
      // Inline (not a helper method): a vector returned from a call that is not inlined is boxed.
      LongVector z = IOTA.add((long) i).mul(GOLDEN).add(key);
      z = z.lanewise(VectorOperators.XOR, z.lanewise(VectorOperators.LSHR, 30)).mul(M1);
      z = z.lanewise(VectorOperators.XOR, z.lanewise(VectorOperators.LSHR, 27)).mul(M2);
      IntVector keep =
          ((IntVector)
                  z.lanewise(VectorOperators.XOR, z.lanewise(VectorOperators.LSHR, 31))
                      .lanewise(VectorOperators.LSHR, 40)
                      .sub(threshold)
                      .lanewise(VectorOperators.ASHR, 63)
                      .convertShape(VectorOperators.L2I, I, 0))
              .not();
      FloatVector v = FloatVector.fromArray(F, src, srcOff + i).mul(scale);
      v.reinterpretAsInts().and(keep).reinterpretAsFloats().intoArray(dst, dstOff + i);
    }
    return i;
  }

  /**
   * As {@link #apply} over the whole 32-element words {@code w0 <= w < w1}, recording in {@code
   * keep[w]} bit {@code t} for element {@code 32w + t} kept.
   */
  static void applyMasked(
      float[] src,
      int srcOff,
      float[] dst,
      int dstOff,
      int w0,
      int w1,
      long key,
      long threshold,
      float scale,
      int[] keep) {
    for (int w = w0; w < w1; w++) {
      int bits = 0;
      for (int t = 0; t < 32; t += LANES) {
        int i = (w << 5) + t;
        LongVector z = IOTA.add((long) i).mul(GOLDEN).add(key);
        z = z.lanewise(VectorOperators.XOR, z.lanewise(VectorOperators.LSHR, 30)).mul(M1);
        z = z.lanewise(VectorOperators.XOR, z.lanewise(VectorOperators.LSHR, 27)).mul(M2);
        IntVector k =
            ((IntVector)
                    z.lanewise(VectorOperators.XOR, z.lanewise(VectorOperators.LSHR, 31))
                        .lanewise(VectorOperators.LSHR, 40)
                        .sub(threshold)
                        .lanewise(VectorOperators.ASHR, 63)
                        .convertShape(VectorOperators.L2I, I, 0))
                .not();
        FloatVector v = FloatVector.fromArray(F, src, srcOff + i).mul(scale);
        v.reinterpretAsInts().and(k).reinterpretAsFloats().intoArray(dst, dstOff + i);
        bits |= k.and(LANE_BITS).reduceLanes(VectorOperators.ADD) << t;
      }
      keep[w] = bits;
    }
  }
}
