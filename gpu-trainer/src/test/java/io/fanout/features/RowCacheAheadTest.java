package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.GraphStore;
import io.fanout.graph.StoreFixtures;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code belady} cache that classifies each batch while the previous one is read ({@link
 * RowCache#plan(int[][], int[], int, int)} with the batches it will gather) gives the rows, hits,
 * misses and reads of the cache that classifies each batch when it is gathered: with caches from
 * smaller than one batch's misses to most of the rows, batches repeating rows, merged and per-row
 * reads, one and several I/O threads.
 */
class RowCacheAheadTest {
  @TempDir Path tmp;

  @Test
  void classifyingAheadChangesNothing() {
    int n = 3000;
    int dim = 6;
    Path dir = tmp.resolve("g");
    StoreFixtures.write(dir, StoreFixtures.random(3, n, 3, dim), new int[] {1000, 2000});
    SplittableRandom rnd = new SplittableRandom(11);
    int[][] batches = new int[40][];
    for (int b = 0; b < batches.length; b++) {
      batches[b] = new int[1 + rnd.nextInt(400)];
      for (int i = 0; i < batches[b].length; i++) {
        // skewed, with repeats inside a batch
        double r = rnd.nextDouble();
        batches[b][i] = (int) (r * r * n);
      }
    }
    try (GraphStore g = GraphStore.open(dir)) {
      for (long rows : new long[] {3, 40, 300, 2500}) {
        for (ReadCoalescing c :
            new ReadCoalescing[] {ReadCoalescing.ROW_AT_A_TIME, ReadCoalescing.BUFFERED}) {
          for (int threads : new int[] {1, 4}) {
            long[] serial = replay(g, batches, rows * dim * 4, c, threads, false);
            long[] ahead = replay(g, batches, rows * dim * 4, c, threads, true);
            assertThat(ahead).as("%d rows, %s, %d threads", rows, c, threads).isEqualTo(serial);
          }
        }
      }
    }
  }

  @Test
  void gatheringOtherRowsThanThePlannedNextBatchIsRefused() {
    Path dir = tmp.resolve("g");
    StoreFixtures.write(dir, StoreFixtures.random(3, 100, 3, 4), new int[] {100});
    try (GraphStore g = GraphStore.open(dir);
        RowCache cache = new RowCache(FeatureFiles.open(g, 2), CachePolicy.BELADY, 10L * 4 * 4)) {
      int[][] b = {{1, 2, 3}, {4, 5, 6}, {7, 8}};
      cache.plan(b, new int[] {3, 3, 2}, 3, 3);
      float[] out = new float[3 * 4];
      cache.gather(b[0], 0, 3, out, 0);
      assertThatThrownBy(() -> cache.gather(new int[] {4, 5, 9}, 0, 3, out, 0))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("not the next batch of the plan");
    }
  }

  /**
   * Serves {@code batches} as the loader does (plan up to 8, gather half, plan again); returns a
   * checksum of the rows gathered, then hits, misses, rows read and read calls.
   */
  private static long[] replay(
      GraphStore g, int[][] batches, long bytes, ReadCoalescing c, int threads, boolean ahead) {
    int dim = g.features().dim();
    try (RowCache cache =
        new RowCache(FeatureFiles.open(g, threads, false, c), CachePolicy.BELADY, bytes)) {
      long sum = 0;
      float[] out = new float[400 * dim + 5];
      for (int head = 0; head < batches.length; ) {
        int size = Math.min(8, batches.length - head);
        int[][] ids = new int[size][];
        int[] counts = new int[size];
        for (int i = 0; i < size; i++) {
          ids[i] = batches[head + i];
          counts[i] = ids[i].length;
        }
        boolean more = head + size < batches.length;
        int step = more ? Math.max(1, size / 2) : size;
        cache.plan(ids, counts, size, ahead ? step : 0);
        for (int i = 0; i < step; i++) {
          cache.gather(ids[i], 0, counts[i], out, 5);
          for (int k = 5; k < 5 + counts[i] * dim; k++) {
            sum = sum * 31 + Float.floatToRawIntBits(out[k]);
          }
        }
        head += step;
      }
      return new long[] {
        sum, cache.hits(), cache.misses(), cache.files().rowsRead(), cache.files().reads()
      };
    }
  }
}
