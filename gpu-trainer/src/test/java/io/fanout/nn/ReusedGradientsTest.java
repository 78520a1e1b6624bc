package io.fanout.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.tensor.CounterRng;
import io.fanout.tensor.CpuBackend;
import org.junit.jupiter.api.Test;

class ReusedGradientsTest {
  private static float[] download(CpuBackend be, ReusedGradients g, int n) {
    float[] h = new float[n];
    be.download(g.sum(), 0, h, 0, n);
    return h;
  }

  /**
   * Appends of distinct slots each, a slot repeated across appends, and more rows than slots (the
   * buffer folds into the sum on the way): each slot gets the sum of its rows in append order, bit
   * for bit as a plain loop; clear starts over.
   */
  @Test
  void sumsEachSlotsRowsInAppendOrder() {
    CpuBackend be = new CpuBackend();
    int slots = 5;
    int w = 3;
    for (int appends : new int[] {0, 1, 4, 40}) {
      try (ReusedGradients g = new ReusedGradients(be, slots, w)) {
        float[] want = new float[slots * w];
        for (int a = 0; a < appends; a++) {
          int n = 1 + a % slots;
          int[] ids = new int[n];
          float[] rows = new float[n * w];
          for (int i = 0; i < n; i++) {
            ids[i] = (a + 2 * i) % slots; // distinct within an append when n <= slots
            for (int c = 0; c < w; c++) {
              rows[i * w + c] = CounterRng.uniform(a, i * w + c) - 0.5f;
              want[ids[i] * w + c] += rows[i * w + c];
            }
          }
          g.append(ids, rows, n);
        }
        assertThat(download(be, g, slots * w)).as("%d appends", appends).containsExactly(want);
        g.clear();
        assertThat(download(be, g, slots * w)).containsOnly(0f);
      }
    }
  }

  @Test
  void refusesSlotsOutOfRange() {
    CpuBackend be = new CpuBackend();
    try (ReusedGradients g = new ReusedGradients(be, 2, 1)) {
      assertThatThrownBy(() -> g.append(new int[] {2}, new float[] {1f}, 1))
          .hasMessageContaining("slot 2 of 2");
    }
  }
}
