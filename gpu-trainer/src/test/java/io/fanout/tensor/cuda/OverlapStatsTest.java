package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The hidden share of copy time and the data wait, from hand-made timelines. */
class OverlapStatsTest {
  @Test
  void fullyOverlappedUploadsAreHiddenAndCauseNoWait() {
    // batch i uploads during batch i-1's step; batch 0's upload runs before any compute
    OverlapStats s =
        OverlapStats.of(
            new double[] {0, 10, 20, 30},
            new double[] {2, 12, 22, 32},
            new double[] {2, 12, 22, 32},
            new double[] {12, 22, 32, 42});
    assertThat(s.copyMs()).isEqualTo(8);
    assertThat(s.hiddenMs()).isEqualTo(6);
    assertThat(s.hiddenShare()).isCloseTo(0.75, within(1e-12));
    assertThat(s.dataWaitShare()).isZero();
  }

  @Test
  void serialUploadsAreExposedAndWaitedFor() {
    // no overlap: each upload starts when the previous step ends and the step waits for it
    OverlapStats s =
        OverlapStats.of(
            new double[] {0, 10, 20},
            new double[] {2, 12, 22},
            new double[] {2, 12, 22},
            new double[] {10, 20, 30});
    assertThat(s.hiddenShare()).isZero();
    assertThat(s.dataWaitShare()).isCloseTo(4.0 / 20.0, within(1e-12));
    assertThat(s.toString()).contains("0.0% hidden").contains("data wait 20.0%");
  }

  @Test
  void computeIdleForOtherReasonsIsNotDataWait() {
    // the upload finished long before; the step started late for a host-side reason
    OverlapStats s =
        OverlapStats.of(
            new double[] {0, 1}, new double[] {1, 2}, new double[] {1, 15}, new double[] {10, 20});
    assertThat(s.dataWaitShare()).isZero();
  }
}
