package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link FurthestNextUse} and {@link LeastRecentlyUsed} against plain arrays: the slot each gives
 * up next is the one a scan of every held slot picks.
 */
class EvictionOrderTest {
  @Test
  void furthestNextUseTopsTheLargestKeyAndNeverBeforeAnyPosition() {
    for (int slots : new int[] {1, 2, 7, 100, 1000}) {
      for (int len : new int[] {1, 64, 65, 4097, 300_000}) {
        SplittableRandom rnd = new SplittableRandom(31L * slots + len);
        FurthestNextUse order = new FurthestNextUse(slots);
        long[] ref = new long[slots];
        boolean[] in = new boolean[slots];
        long base = 0;
        // position -> slot holding it (positions are distinct among held slots)
        int[] owner = new int[len];
        for (int round = 0; round < 3; round++) {
          // a shorter window between two long ones: its bitmap words hold the first's bits
          int win = round == 1 ? Math.max(1, len / 3) : len;
          base += rnd.nextInt(1000);
          order.reset(base, win);
          java.util.Arrays.fill(in, false);
          java.util.Arrays.fill(owner, -1);
          for (int op = 0; op < 10 * slots; op++) {
            int s = rnd.nextInt(slots);
            long key;
            if (rnd.nextInt(4) == 0) {
              key = EvictionOrder.NEVER;
            } else {
              int p = rnd.nextInt(win);
              if (owner[p] >= 0 && owner[p] != s) {
                continue; // a position is the next use of one row only
              }
              key = base + p;
            }
            if (in[s] && ref[s] != EvictionOrder.NEVER) {
              owner[(int) (ref[s] - base)] = -1;
            }
            if (key != EvictionOrder.NEVER) {
              owner[(int) (key - base)] = s;
            }
            in[s] = true;
            ref[s] = key;
            order.set(s, key);
            long max = Long.MIN_VALUE;
            for (int t = 0; t < slots; t++) {
              if (in[t]) {
                max = Math.max(max, ref[t]);
                assertThat(order.key(t)).isEqualTo(ref[t]);
              }
            }
            int top = order.top();
            assertThat(in[top]).isTrue();
            assertThat(ref[top]).as("%d slots, window %d, op %d", slots, win, op).isEqualTo(max);
          }
        }
      }
    }
  }

  @Test
  void aNextUseOutsideTheWindowIsRefused() {
    FurthestNextUse order = new FurthestNextUse(2);
    order.reset(100, 10);
    order.set(0, 109);
    assertThat(order.top()).isZero();
    assertThatThrownBy(() -> order.set(1, 110)).hasMessageContaining("outside the planned window");
    assertThatThrownBy(() -> order.set(1, 99)).hasMessageContaining("outside the planned window");
    order.reset(200, 10);
    assertThatThrownBy(order::top).hasMessageContaining("no slot");
  }

  @Test
  void leastRecentlyUsedTopsTheSlotSetLongestAgo() {
    for (int slots : new int[] {1, 2, 7, 100}) {
      SplittableRandom rnd = new SplittableRandom(slots);
      LeastRecentlyUsed order = new LeastRecentlyUsed(slots);
      assertThatThrownBy(order::top).hasMessageContaining("no slot");
      long[] lastSet = new long[slots];
      boolean[] in = new boolean[slots];
      for (long clock = 1; clock <= 50L * slots; clock++) {
        int s = rnd.nextInt(slots);
        in[s] = true;
        lastSet[s] = clock;
        order.set(s, -clock);
        int oldest = -1;
        for (int t = 0; t < slots; t++) {
          if (in[t] && (oldest < 0 || lastSet[t] < lastSet[oldest])) {
            oldest = t;
          }
        }
        assertThat(order.top()).as("%d slots, step %d", slots, clock).isEqualTo(oldest);
        assertThat(order.key(s)).isEqualTo(-clock);
      }
    }
  }
}
