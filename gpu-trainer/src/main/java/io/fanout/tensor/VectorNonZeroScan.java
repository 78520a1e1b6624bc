package io.fanout.tensor;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/** {@link NonZeroScan}'s vector loop; loaded only when the Vector API module is present. */
final class VectorNonZeroScan {
  private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

  private VectorNonZeroScan() {}

  static boolean usable() {
    return F.length() >= 4;
  }

  /**
   * Passes over whole vectors of zeros from {@code i}: returns the first non-zero's index in the
   * first vector holding one, or the start of the tail shorter than a vector (possibly {@code
   * end}), which the caller scans.
   */
  static int skipZeros(float[] x, int i, int end) {
    int lanes = F.length();
    for (; i <= end - lanes; i += lanes) {
      VectorMask<Float> m = FloatVector.fromArray(F, x, i).compare(VectorOperators.NE, 0f);
      if (m.anyTrue()) {
        return i + m.firstTrue();
      }
    }
    return i;
  }
}
