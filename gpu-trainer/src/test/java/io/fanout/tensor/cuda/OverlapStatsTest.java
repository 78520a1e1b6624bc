package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The hidden share of copy time and the data wait, from hand-made timelines. */
class OverlapStatsTest {
  @Test
  void uploadsThatFinishBeforeTheComputeStreamArrivesAreHidden() {
    // group g uploads 2 ms while the previous batch computes; compute arrives after the copy
    OverlapStats s =
        OverlapStats.of(
            new double[] {2, 2, 2},
            new double[] {0, 12, 22},
            new double[] {2, 11, 21},
            new double[] {2.5, 12.5, 22.5});
    // group 0 has nothing to hide behind: 2 ms exposed of 6
    assertThat(s.hiddenShare()).isCloseTo(4.0 / 6.0, within(1e-12));
    assertThat(s.dataWaitShare()).isZero();
  }

  @Test
  void serialUploadsAreExposedAndWaitedFor() {
    // the compute stream is idle when each upload starts and waits for all of it
    OverlapStats s =
        OverlapStats.of(
            new double[] {2, 2, 2},
            new double[] {0, 10, 20},
            new double[] {2, 12, 22},
            new double[] {2.1, 12.1, 22.1});
    assertThat(s.hiddenShare()).isZero();
    assertThat(s.dataWaitShare()).isCloseTo(4.0 / 20.0, within(1e-12));
    assertThat(s.toString()).contains("0.0% hidden").contains("data wait 20.0%");
  }

  @Test
  void partlyOverlappedUploadsArePartlyHidden() {
    // 4 ms of copy; the compute stream arrives 1 ms before the copy ends
    OverlapStats s =
        OverlapStats.of(
            new double[] {4, 4}, new double[] {0, 9}, new double[] {4, 10}, new double[] {4, 10.2});
    assertThat(s.exposedMs()).isCloseTo(5.0, within(1e-12));
    assertThat(s.hiddenShare()).isCloseTo(3.0 / 8.0, within(1e-12));
    assertThat(s.dataWaitShare()).isCloseTo(1.0 / 6.2, within(1e-12));
  }
}
