package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureFiles;
import io.fanout.features.OfflineMin;
import io.fanout.features.RowCache;
import io.fanout.features.RowCacheSizing;
import io.fanout.graph.GraphStore;
import io.fanout.graph.StoreFixtures;
import io.fanout.nn.FeatureNormKind;
import io.fanout.sample.MiniBatch;
import io.fanout.sample.NeighborSampler;
import io.fanout.tensor.PageMemory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fixed window plans its number of batches; {@code auto}'s Belady window grows past its minimum
 * to a number of cache sizes of rows, bounded by the cache's bytes and a batch count, and other
 * policies keep the minimum; the loader plans such windows and still serves every batch its exact
 * rows.
 */
class PlanWindowTest {
  @TempDir Path tmp;

  private static final int AUTO = RowCacheSizing.AUTO_WINDOW;

  @Test
  void aFixedWindowPlansItsBatches() {
    for (CachePolicy p : CachePolicy.values()) {
      for (int w : new int[] {1, 32, 2000}) {
        PlanWindow fixed = new PlanWindow(p, 1000, 400, w);
        assertThat(fixed.wantsMore(w - 1, 1_000_000_000)).isTrue();
        assertThat(fixed.wantsMore(w, 0)).isFalse();
        assertThat(fixed.maxAccesses(100)).isEqualTo(100L * w);
      }
    }
  }

  @Test
  void autosBeladyWindowGrowsToItsTargetRowsAndOthersKeepTheMinimum() {
    // 1000 rows of 400 bytes: min(16 x 1000, 1000 x 400 / 32) = 12,500 rows
    PlanWindow belady = new PlanWindow(CachePolicy.BELADY, 1000, 400, AUTO);
    assertThat(belady.wantsMore(0, 0)).isTrue();
    assertThat(belady.wantsMore(31, 1_000_000)).isTrue();
    assertThat(belady.wantsMore(32, 12_499)).isTrue();
    assertThat(belady.wantsMore(32, 12_500)).isFalse();
    assertThat(belady.wantsMore(PlanWindow.MAX_BATCHES, 0)).isFalse();
    assertThat(belady.maxAccesses(100)).isEqualTo(12_600);
    assertThat(belady.maxAccesses(1000)).isEqualTo(32_000);
    assertThat(belady.maxAccesses(1)).isEqualTo(PlanWindow.MAX_BATCHES);
    // large rows: 16 cache sizes bind first
    assertThat(new PlanWindow(CachePolicy.BELADY, 1000, 4096, AUTO).wantsMore(32, 15_999)).isTrue();
    assertThat(new PlanWindow(CachePolicy.BELADY, 1000, 4096, AUTO).wantsMore(32, 16_000))
        .isFalse();
    for (CachePolicy p : new CachePolicy[] {CachePolicy.LRU, CachePolicy.NONE}) {
      PlanWindow w = new PlanWindow(p, 1000, 400, AUTO);
      assertThat(w.wantsMore(31, 0)).isTrue();
      assertThat(w.wantsMore(32, 0)).isFalse();
      assertThat(w.maxAccesses(100)).isEqualTo(3200);
    }
    // a window too long for the plan's int positions stops growing
    assertThat(belady.wantsMore(3, PlanWindow.MAX_ROWS)).isFalse();
    assertThat(PlanWindow.servedPerPlan(true, 33)).isEqualTo(16);
    assertThat(PlanWindow.servedPerPlan(true, 1)).isEqualTo(1);
    assertThat(PlanWindow.servedPerPlan(false, 33)).isEqualTo(33);
  }

  @Test
  void theLoaderPlansAGrownWindowAndServesExactRows() throws Exception {
    int[] windows = new int[2];
    long[] misses = new long[2];
    for (int i = 0; i < 2; i++) {
      int window = i == 0 ? AUTO : RowCacheSizing.DEFAULT_WINDOW_BATCHES;
      RowCache c = serveThroughCache(window);
      windows[i] = c.longestPlanBatches();
      misses[i] = c.misses();
    }
    assertThat(windows[0]).isGreaterThan(PlanWindow.MIN_BATCHES);
    assertThat(windows[1]).isEqualTo(RowCacheSizing.DEFAULT_WINDOW_BATCHES);
    assertThat(misses[0]).isLessThan(misses[1]);
  }

  /**
   * Serves 200 small batches through a belady cache of 400 rows planned with {@code window}, checks
   * every batch's rows, and returns the closed cache.
   */
  private RowCache serveThroughCache(int window) throws Exception {
    int n = 600;
    int dim = 64;
    Path dir = tmp.resolve("store-" + window);
    StoreFixtures.write(dir, StoreFixtures.random(3, n, 6, dim), new int[] {300, 300});
    try (GraphStore g = GraphStore.open(dir)) {
      NeighborSampler.Worker w =
          new NeighborSampler(g.csr(), g.vertices(), new int[] {3, 2}, 1).newWorker();
      int[] seeds = new int[n];
      Arrays.setAll(seeds, i -> i);
      List<DecodedBatch> batches = new ArrayList<>();
      for (int b = 0; b < 200; b++) {
        batches.add(new DecodedBatch(w.sample(0, b, seeds, (b * 4) % n, 4), null));
      }
      BatchPart part =
          new BatchPart() {
            @Override
            public Iterator<DecodedBatch> open() {
              return batches.iterator();
            }

            @Override
            public String name() {
              return "part-0";
            }
          };
      int capacity = 400; // rows of 256 bytes: a target of 3,200 rows, about 90 batches
      int[] seq = batches.stream().flatMapToInt(d -> Arrays.stream(d.batch().nodes())).toArray();
      RowCache cache =
          new RowCache(
              FeatureFiles.open(g, 2),
              CachePolicy.BELADY,
              capacity * 256L,
              PageMemory.HEAP,
              window);
      try (cache;
          PipelinedLoader l =
              new PipelinedLoader(
                  List.of(part), g.features(), dim, FeatureNormKind.NONE, 2, 2, v -> true, cache)) {
        TrainBatch b;
        int served = 0;
        while ((b = l.next()) != null) {
          MiniBatch mb = b.batch();
          int[] nodes = mb.nodes();
          float[] rows = new float[nodes.length * dim];
          g.features().gather(nodes, 0, nodes.length, rows, 0);
          assertThat(Arrays.copyOf(b.features(), rows.length)).containsExactly(rows);
          l.recycle(b);
          served++;
        }
        assertThat(served).isEqualTo(200);
        assertThat(cache.misses())
            .isGreaterThanOrEqualTo(OfflineMin.misses(seq, seq.length, n, capacity));
        assertThat(cache.hits() + cache.misses()).isEqualTo(seq.length);
      }
      return cache;
    }
  }
}
