package io.fanout.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** The vector scan for non-zeros finds what the scalar loop finds, from every start. */
class NonZeroScanTest {
  @Test
  void vectorAndScalarScansAgreeFromEveryStart() {
    assumeTrue(NonZeroScan.VECTOR, "the Vector API is not available here");
    for (int len : new int[] {0, 1, 63, 64, 65, 200, 1031}) {
      for (double density : new double[] {0, 0.005, 0.1, 1}) {
        float[] x = new float[len + 3];
        for (int i = 0; i < x.length; i++) {
          float u = CounterRng.uniform(len * 31L + (long) (density * 1000), i);
          if (u < density) {
            x[i] = i % 7 == 0 ? Float.NaN : u - 0.5f;
          } else if (i % 3 == 0) {
            x[i] = -0f;
          }
        }
        for (int from = 0; from <= len; from++) {
          int end = len + (from % 2 == 0 ? 0 : 3);
          int scalar = NonZeroScan.next(x, from, end, false);
          assertThat(NonZeroScan.next(x, from, end, true))
              .as("len %d density %s from %d", len, density, from)
              .isEqualTo(scalar);
          assertThat(scalar).isBetween(from, end);
          if (scalar < end) {
            assertThat(x[scalar] != 0f).isTrue();
          }
          for (int i = from; i < scalar; i++) {
            assertThat(x[i] == 0f).isTrue();
          }
        }
      }
    }
  }
}
