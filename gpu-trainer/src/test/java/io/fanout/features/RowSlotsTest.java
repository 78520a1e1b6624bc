package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RowSlotsTest {
  @Test
  void indexesByVertexWhereTheArrayIsNoLargerThanTheRows() {
    assertThat(RowSlots.byVertex(1000, 10, 400)).isTrue(); // 4,000 <= 4,000
    assertThat(RowSlots.byVertex(1001, 10, 400)).isFalse();
    assertThat(RowSlots.byVertex(1000, 0, 400)).isFalse(); // no slots: the empty map
    // products size: 2.5 M vertices, a 5% cache of 400-byte rows; of 32-byte pq rows at 1%
    assertThat(RowSlots.byVertex(2_500_000, 125_000, 400)).isTrue();
    assertThat(RowSlots.byVertex(2_500_000, 25_000, 32)).isFalse();
  }

  @Test
  void bothIndexesAgreeWithAMapUnderRandomPutsAndRemoves() {
    int vertices = 2000;
    for (int rowBytes : new int[] {8, 4000}) { // through the map, then by vertex
      RowSlots slots = RowSlots.of(vertices, 100, rowBytes);
      Map<Integer, Integer> ref = new HashMap<>();
      SplittableRandom rnd = new SplittableRandom(rowBytes);
      for (int i = 0; i < 20_000; i++) {
        int row = rnd.nextInt(vertices);
        if (ref.containsKey(row)) {
          slots.remove(row);
          ref.remove(row);
        } else if (ref.size() < 100) {
          slots.put(row, i % 100);
          ref.put(row, i % 100);
        }
        int probe = rnd.nextInt(vertices);
        assertThat(slots.get(probe)).isEqualTo(ref.getOrDefault(probe, -1));
      }
    }
  }
}
