package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link SlotHeap} against a plain array of keys: the top always holds the largest key. */
class SlotHeapTest {
  @Test
  void theTopHasTheLargestKeyAfterSetsAssignsAndHeapify() {
    for (int slots : new int[] {1, 2, 7, 100, 1000}) {
      SplittableRandom rnd = new SplittableRandom(slots);
      SlotHeap h = new SlotHeap(slots);
      long[] ref = new long[slots];
      boolean[] in = new boolean[slots];
      int present = 0;
      for (int op = 0; op < 20 * slots; op++) {
        if (rnd.nextInt(10) == 0 && present > 0) {
          for (int s = 0; s < slots; s++) {
            if (in[s]) {
              ref[s] = rnd.nextLong(50);
              h.assign(s, ref[s]);
            }
          }
          h.heapify();
        } else {
          int s = rnd.nextInt(slots);
          present += in[s] ? 0 : 1;
          in[s] = true;
          ref[s] = rnd.nextLong(50); // few distinct keys: ties are common
          h.set(s, ref[s]);
        }
        long max = Long.MIN_VALUE;
        for (int s = 0; s < slots; s++) {
          if (in[s]) {
            max = Math.max(max, ref[s]);
            assertThat(h.key(s)).isEqualTo(ref[s]);
          }
        }
        assertThat(h.size()).isEqualTo(present);
        assertThat(in[h.top()]).isTrue();
        assertThat(h.key(h.top())).as("%d slots, op %d", slots, op).isEqualTo(max);
      }
    }
  }
}
