package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The own SGEMM kernel's split of long k dimensions ({@link SplitK}). */
class SplitKTest {
  @Test
  void weightGradientShapesAreSplitSoEveryMultiprocessorWorks() {
    // 200 x 256 outputs (16 tiles) summed over 139,609 rows on an H100's 132 multiprocessors
    assertThat(SplitK.slices(200, 256, 139_609, 132)).isEqualTo(17);
    // k bounds the split: at least 512 per slice
    assertThat(SplitK.slices(64, 64, 4096, 132)).isEqualTo(8);
  }

  @Test
  void productsWithEnoughTilesOrAShortKAreNotSplit() {
    assertThat(SplitK.slices(2048, 2048, 2048, 132)).isEqualTo(1);
    assertThat(SplitK.slices(139_609, 256, 200, 132)).isEqualTo(1);
    assertThat(SplitK.slices(64, 64, 1023, 132)).isEqualTo(1);
    assertThat(SplitK.slices(0, 0, 100_000, 132)).isEqualTo(1);
  }

  @Test
  void slicesAreMultiplesOfTheKernelsStepAndCoverK() {
    for (int k : new int[] {1024, 6000, 139_609}) {
      for (int s = 1; s <= 40; s++) {
        int kc = SplitK.sliceLength(k, s);
        assertThat(kc % SplitK.STEP).isZero();
        int parts = (k + kc - 1) / kc;
        assertThat(parts).isBetween(1, s);
        assertThat((long) parts * kc).isGreaterThanOrEqualTo(k);
        assertThat((long) (parts - 1) * kc).isLessThan(k);
      }
    }
  }
}
