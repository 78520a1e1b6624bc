package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.GraphStore;
import io.fanout.graph.RowDecoder;
import io.fanout.graph.StoreFixtures;
import io.fanout.store.FeatureParams;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.PageMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RowCache#resolve}: the slots it returns hold the batch's rows in the cache's {@link
 * PageMemory} (read back by a reference decoder), with the hits, misses, evictions and reads of
 * {@link RowCache#gather} on the same ids; and a batch waits for the previous one's release before
 * it writes a slot.
 */
class RowCacheResolveTest {
  @TempDir Path tmp;

  /** Small pages (a few rows each) that the test reads back by slot. */
  private static final class Pages implements PageMemory {
    final long pageBytes;
    final List<ByteBuffer> pages = new ArrayList<>();
    final List<Long> firsts = new ArrayList<>();

    Pages(long pageBytes) {
      this.pageBytes = pageBytes;
    }

    @Override
    public long pageBytes() {
      return pageBytes;
    }

    @Override
    public ByteBuffer allocate(long firstSlot, int bytes) {
      ByteBuffer b = ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < bytes; i++) {
        b.put(i, (byte) 0x7f); // garbage: a slot read before it is written decodes to nonsense
      }
      pages.add(b);
      firsts.add(firstSlot);
      return b;
    }

    void decode(RowDecoder dec, int slot, float[] out, int o) {
      int p = pages.size() - 1;
      while (firsts.get(p) > slot) {
        p--;
      }
      long at = (slot - firsts.get(p)) * (long) dec.rowBytes();
      assertThat(at + dec.rowBytes()).isLessThanOrEqualTo(pages.get(p).capacity());
      dec.decode(pages.get(p), (int) at, out, o);
    }
  }

  private GraphStore store(int n, int dim, FeatureParams params) {
    Path dir = tmp.resolve("g" + n + "e" + (params == null ? "f32" : params.encoding));
    StoreFixtures.Graph g = StoreFixtures.random(3, n, 3, dim);
    int[] parts = n < 3 ? new int[] {n} : new int[] {n / 3, n - 2 * (n / 3), n / 3};
    if (params == null) {
      StoreFixtures.write(dir, g, parts);
    } else {
      StoreFixtures.write(dir, g, parts, params);
    }
    return GraphStore.open(dir);
  }

  /** Batches of rows below {@code n}, repeats allowed inside a batch, sizes 0..maxSize. */
  private static int[][] batches(SplittableRandom rnd, int count, int n, int maxSize) {
    int[][] out = new int[count][];
    for (int b = 0; b < count; b++) {
      out[b] = new int[rnd.nextInt(maxSize + 1)];
      for (int i = 0; i < out[b].length; i++) {
        out[b][i] = rnd.nextInt(n);
      }
    }
    return out;
  }

  private void resolveMatchesGather(GraphStore g, long cacheRows, CachePolicy p, long seed)
      throws Exception {
    int n = g.manifest().vertices > 0 ? (int) g.manifest().vertices : 0;
    int dim = g.manifest().featureDim;
    int rowBytes = g.featureParams().rowBytes();
    RowDecoder dec = RowDecoder.of(g.featureParams());
    int[][] bs = batches(new SplittableRandom(seed), 24, Math.max(1, n), n == 0 ? 0 : 90);
    Pages pages = new Pages(3L * rowBytes + 1);
    try (RowCache gather = new RowCache(FeatureFiles.open(g, 2), p, cacheRows * rowBytes);
        RowCache resolve = new RowCache(FeatureFiles.open(g, 3), p, cacheRows * rowBytes, pages)) {
      float[] want = new float[90 * dim];
      float[] got = new float[90 * dim];
      int[] slots = new int[90];
      for (int w = 0; w < bs.length; w += 5) {
        int k = Math.min(5, bs.length - w);
        int[][] win = Arrays.copyOfRange(bs, w, w + k);
        int[] counts = Arrays.stream(win).mapToInt(b -> b.length).toArray();
        gather.plan(win, counts, k);
        resolve.plan(win, counts, k);
        for (int[] b : win) {
          gather.gather(b, 0, b.length, want, 0);
          long batch = resolve.resolve(b, 0, b.length, slots);
          Arrays.fill(got, Float.NaN);
          for (int i = 0; i < b.length; i++) {
            assertThat(slots[i]).isNotNegative();
            pages.decode(dec, slots[i], got, i * dim);
          }
          assertThat(Arrays.copyOf(got, b.length * dim))
              .as("policy %s, %d rows, batch %d", p, cacheRows, batch)
              .containsExactly(Arrays.copyOf(want, b.length * dim));
          resolve.fence().release(batch);
          assertThat(resolve.hits()).isEqualTo(gather.hits());
          assertThat(resolve.misses()).isEqualTo(gather.misses());
          assertThat(resolve.residentRows()).isEqualTo(gather.residentRows());
        }
      }
      assertThat(resolve.files().rowsRead()).isEqualTo(gather.files().rowsRead());
    }
  }

  @Test
  void resolvedSlotsHoldTheRowsGatherGivesWithItsHitsAndMisses() throws Exception {
    for (int n : new int[] {1, 7, 300}) {
      try (GraphStore g = store(n, 6, null)) {
        for (CachePolicy p : CachePolicy.values()) {
          for (long rows : new long[] {1, 4, 40, 400}) {
            resolveMatchesGather(g, p == CachePolicy.NONE ? 0 : rows, p, n * 131L + rows);
          }
        }
      }
    }
  }

  @Test
  void encodedRowsAreResolvedEncoded() throws Exception {
    int dim = 6;
    FeatureParams[] encodings = {
      FeatureParams.plain(StoreLayout.ENCODING_F16, dim),
      FeatureParams.affine(
          StoreLayout.ENCODING_INT4,
          new float[] {-1, -2, -3, -1, -1, -1},
          new float[] {1, 2, 3, 1, 1, 1})
    };
    for (FeatureParams params : encodings) {
      try (GraphStore g = store(200, dim, params)) {
        assertThat(g.featureParams().rowBytes()).isLessThan(4 * dim);
        for (CachePolicy p : new CachePolicy[] {CachePolicy.BELADY, CachePolicy.LRU}) {
          resolveMatchesGather(g, 9, p, params.encoding);
        }
      }
    }
  }

  @Test
  void aBatchWritesNoSlotBeforeThePreviousOneIsReleased() throws Exception {
    try (GraphStore g = store(50, 4, null);
        RowCache c =
            new RowCache(FeatureFiles.open(g, 1), CachePolicy.LRU, 2 * 16L, new Pages(64))) {
      int[] slots = new int[3];
      long first = c.resolve(new int[] {1, 2, 3}, 0, 3, slots);
      assertThat(first).isEqualTo(1);
      long readsBefore = c.files().reads();
      CompletableFuture<Long> second =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return c.resolve(new int[] {4, 5, 6}, 0, 3, new int[3]);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      Thread.sleep(200);
      assertThat(second).isNotDone();
      assertThat(c.files().reads()).isEqualTo(readsBefore);
      assertThat(c.misses()).isEqualTo(3);
      c.fence().release(first);
      assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo(2);
      assertThat(c.misses()).isEqualTo(6);
      // an interrupted wait numbers no batch: the next one still waits on batch 2 alone
      Thread waiter =
          new Thread(
              () -> {
                try {
                  c.resolve(new int[] {7}, 0, 1, new int[1]);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      waiter.start();
      waiter.interrupt();
      waiter.join();
      c.fence().release(2);
      assertThat(c.resolve(new int[] {7}, 0, 1, slots)).isEqualTo(3);
    }
  }
}
