package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The hidden share of copy time and the data wait, from hand-made timelines. */
class OverlapStatsTest {
  /** One copy per group: it ran over [start, end], the compute stream reached it at reach. */
  private static OverlapStats.Group copy(double start, double end, double reach, double done) {
    return new OverlapStats.Group(
        new double[] {start}, new double[] {end}, new double[] {reach}, done);
  }

  @Test
  void uploadsThatFinishBeforeTheComputeStreamArrivesAreHidden() {
    // each batch's 2 ms upload runs while the previous batch computes; group 0 has nothing before
    OverlapStats s =
        OverlapStats.of(List.of(copy(0, 2, 0, 10), copy(9, 11, 12, 20), copy(19, 21, 22, 30)));
    assertThat(s.hiddenShare()).isCloseTo(4.0 / 6.0, within(1e-12));
    assertThat(s.dataWaitShare()).isZero();
  }

  @Test
  void serialUploadsAreExposedAndWaitedFor() {
    // the compute stream is idle when each upload starts and waits for all of it
    OverlapStats s =
        OverlapStats.of(List.of(copy(0, 2, 0, 10), copy(10, 12, 10, 20), copy(20, 22, 20, 30)));
    assertThat(s.hiddenShare()).isZero();
    assertThat(s.dataWaitShare()).isCloseTo(4.0 / 20.0, within(1e-12));
    assertThat(s.toString()).contains("0.0% hidden").contains("data wait 20.0%");
  }

  @Test
  void partlyOverlappedUploadsArePartlyHidden() {
    // 4 ms of copy; the compute stream arrives 1 ms before the copy ends
    OverlapStats s = OverlapStats.of(List.of(copy(0, 4, 0, 5), copy(6, 10, 9, 15)));
    assertThat(s.exposedMs()).isCloseTo(5.0, within(1e-12));
    assertThat(s.hiddenShare()).isCloseTo(3.0 / 8.0, within(1e-12));
    assertThat(s.dataWaitShare()).isCloseTo(1.0 / 10.0, within(1e-12));
  }

  @Test
  void aLateCopyInAGroupIsChargedWhereTheComputeStreamWaitsForIt() {
    // batch 1: its inputs are hidden behind batch 0; a copy queued later in the step (a backward
    // structure) is reached by the compute stream 0.5 ms before it ends: only that is exposed
    OverlapStats s =
        OverlapStats.of(
            List.of(
                copy(0, 1, 0, 10),
                new OverlapStats.Group(
                    new double[] {5, 14}, new double[] {8, 15}, new double[] {10, 14.5}, 20)));
    assertThat(s.copyMs()).isCloseTo(5.0, within(1e-12));
    assertThat(s.exposedMs()).isCloseTo(1.5, within(1e-12));
    assertThat(s.dataWaitShare()).isCloseTo(0.5 / 10.0, within(1e-12));
  }

  @Test
  void aCopyTheComputeStreamWaitsForBeforeItStartsIsWaitButOnlyItsOwnTimeIsExposed() {
    OverlapStats s = OverlapStats.of(List.of(copy(0, 1, 0, 2), copy(6, 7, 3, 10)));
    assertThat(s.exposedMs()).isCloseTo(2.0, within(1e-12));
    assertThat(s.dataWaitShare()).isCloseTo(4.0 / 8.0, within(1e-12));
  }
}
