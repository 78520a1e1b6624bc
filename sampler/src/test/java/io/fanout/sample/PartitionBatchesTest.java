package io.fanout.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.store.StoreLayout;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The seed order of {@code sample --batch-by-partition} against its definition. */
class PartitionBatchesTest {
  private static final long[] FIRSTS = {0, 120, 121, 500, 500, 1000};

  @Test
  void everySeedOnceAndBatchesStayInOnePartition() {
    TestGraphs.ArrayVertexTable vt = TestGraphs.vertices(1000, 7);
    int batch = 32;
    for (int epoch = 0; epoch < 3; epoch++) {
      int[] order = PartitionBatches.order(vt, FIRSTS, StoreLayout.SPLIT_TRAIN, 11, epoch, batch);
      int[] expected = SeedOrder.order(vt, StoreLayout.SPLIT_TRAIN, 11, epoch);
      assertThat(sorted(order)).isEqualTo(sorted(expected));

      int chunks = SeedOrder.batches(order.length, batch);
      int mixed = 0;
      for (int b = 0; b < chunks; b++) {
        Set<Integer> parts = new HashSet<>();
        for (int i = b * batch; i < Math.min(order.length, (b + 1) * batch); i++) {
          parts.add(partition(order[i]));
        }
        if (parts.size() > 1) {
          mixed++;
        }
      }
      // five partitions, one empty and one of a single vertex: at most 4 chunks straddle
      assertThat(mixed).isLessThanOrEqualTo(FIRSTS.length - 2);
      assertThat(mixed).isLessThan(chunks / 2);
    }
  }

  @Test
  void withinAPartitionSeedsKeepTheirSortKeyOrder() {
    TestGraphs.ArrayVertexTable vt = TestGraphs.vertices(1000, 3);
    int[] order = PartitionBatches.order(vt, FIRSTS, SeedOrder.ALL, 5, 1, 50);
    long epochKey = SampleHash.epochKey(5, 1);
    // the chunk boundaries are the only places where the key order within a partition may reset
    for (int b = 0; b * 50 < order.length; b++) {
      for (int i = b * 50 + 1; i < Math.min(order.length, (b + 1) * 50); i++) {
        if (partition(order[i]) == partition(order[i - 1])) {
          assertThat(SeedOrder.sortKey(epochKey, order[i]))
              .isGreaterThan(SeedOrder.sortKey(epochKey, order[i - 1]));
        }
      }
    }
  }

  @Test
  void deterministicPerEpochAndOnlyTheLastBatchIsShort() {
    TestGraphs.ArrayVertexTable vt = TestGraphs.vertices(1000, 7);
    int[] a = PartitionBatches.order(vt, FIRSTS, SeedOrder.ALL, 11, 0, 64);
    int[] b = PartitionBatches.order(vt, FIRSTS, SeedOrder.ALL, 11, 0, 64);
    int[] c = PartitionBatches.order(vt, FIRSTS, SeedOrder.ALL, 11, 1, 64);
    assertThat(a).isEqualTo(b);
    assertThat(a).isNotEqualTo(c);
    int[] chunkOrder = PartitionBatches.chunkOrder(SampleHash.epochKey(11, 0), 16);
    assertThat(chunkOrder[15]).isEqualTo(15); // 1000 = 15 x 64 + 40: the 40 stay last
    assertThat(sorted(chunkOrder)).isEqualTo(range(16));
    assertThat(chunkOrder).isNotEqualTo(range(16));
  }

  @Test
  void homesAreThePartitionsOfEachBatchsFirstSeed() {
    TestGraphs.ArrayVertexTable vt = TestGraphs.vertices(1000, 9);
    int batch = 40;
    for (int epoch = 0; epoch < 2; epoch++) {
      int[] order = PartitionBatches.order(vt, FIRSTS, StoreLayout.SPLIT_TRAIN, 2, epoch, batch);
      long[] counts = new long[FIRSTS.length - 1];
      for (int v = 0; v < 1000; v++) {
        if (vt.split(v) == StoreLayout.SPLIT_TRAIN) {
          counts[partition(v)]++;
        }
      }
      int[] homes = PartitionBatches.homes(counts, 2, epoch, batch);
      assertThat(homes).hasSize(SeedOrder.batches(order.length, batch));
      for (int b = 0; b < homes.length; b++) {
        assertThat(homes[b]).as("batch " + b).isEqualTo(partition(order[b * batch]));
      }
    }
  }

  private static int partition(int v) {
    int p = 0;
    while (FIRSTS[p + 1] <= v) {
      p++;
    }
    return p;
  }

  private static int[] sorted(int[] a) {
    int[] s = a.clone();
    Arrays.sort(s);
    return s;
  }

  private static int[] range(int n) {
    int[] r = new int[n];
    for (int i = 0; i < n; i++) {
      r[i] = i;
    }
    return r;
  }
}
