package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.FeatureTable;
import io.fanout.nn.FeatureNormKind;
import io.fanout.sample.MiniBatch;
import io.fanout.sample.NeighborSampler;
import io.fanout.store.InvalidInputException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The loader's fill pool: the batches of the one part being drained are gathered side by side, they
 * still come in part order with the rows of their nodes, a fill's failure reaches the consumer
 * naming its part, and closing leaves no loader thread behind.
 */
class PipelinedLoaderTest {
  private static final TestData GRAPH = TestData.random(600, 5, 12, 7);

  /** {@code count} batches of 32 seeds sampled from {@link #GRAPH}, as one part. */
  private static BatchPart part(String name, int count) {
    NeighborSampler.Worker w =
        new NeighborSampler(GRAPH.csr, GRAPH.vertices, new int[] {3, 2}, 1).newWorker();
    int[] seeds = new int[600];
    Arrays.setAll(seeds, i -> i);
    List<DecodedBatch> batches = new ArrayList<>();
    for (int b = 0; b < count; b++) {
      batches.add(new DecodedBatch(w.sample(0, b, seeds, b * 32, 32), null));
    }
    return new BatchPart() {
      @Override
      public Iterator<DecodedBatch> open() {
        return batches.iterator();
      }

      @Override
      public String name() {
        return name;
      }
    };
  }

  /**
   * A table whose first gather waits (up to 10 s) until a second one has started, so the gathers of
   * one part can only finish promptly when they run side by side.
   */
  private static final class MeetingTable implements FeatureTable {
    final AtomicInteger active = new AtomicInteger();
    final AtomicInteger most = new AtomicInteger();
    final AtomicBoolean first = new AtomicBoolean(true);
    final CountDownLatch second = new CountDownLatch(1);
    volatile boolean met;

    @Override
    public int numVertices() {
      return GRAPH.features.numVertices();
    }

    @Override
    public int dim() {
      return GRAPH.features.dim();
    }

    @Override
    public void gather(int[] ids, int from, int count, float[] out, int outOffset) {
      most.accumulateAndGet(active.incrementAndGet(), Math::max);
      try {
        if (first.getAndSet(false)) {
          met = second.await(10, TimeUnit.SECONDS);
        } else {
          second.countDown();
        }
        GRAPH.features.gather(ids, from, count, out, outOffset);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        active.decrementAndGet();
      }
    }
  }

  @Test
  void theBatchesOfOnePartAreGatheredSideBySideAndComeInOrder() {
    MeetingTable table = new MeetingTable();
    BatchPart one = part("one.parquet", 6);
    try (PipelinedLoader l =
        new PipelinedLoader(
            List.of(one), table, GRAPH.features.dim(), FeatureNormKind.NONE, 3, 4)) {
      Iterator<DecodedBatch> expected = one.open();
      TrainBatch b;
      int n = 0;
      while ((b = l.next()) != null) {
        MiniBatch mb = expected.next().batch();
        assertThat(b.batch()).isSameAs(mb);
        int[] nodes = mb.nodes();
        float[] rows = new float[nodes.length * GRAPH.features.dim()];
        GRAPH.features.gather(nodes, 0, nodes.length, rows, 0);
        assertThat(Arrays.copyOf(b.features(), rows.length)).containsExactly(rows);
        l.recycle(b);
        n++;
      }
      assertThat(n).isEqualTo(6);
    }
    assertThat(table.met).as("the first gather met a second one").isTrue();
    assertThat(table.most.get()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void aFillsFailureNamesItsPartAndClosingLeavesNoThread() {
    BatchPart good = part("good.parquet", 2);
    FeatureTable small =
        new FeatureTable() {
          @Override
          public int numVertices() {
            return 10; // the batches reach ids past it
          }

          @Override
          public int dim() {
            return GRAPH.features.dim();
          }

          @Override
          public void gather(int[] ids, int from, int count, float[] out, int outOffset) {
            throw new AssertionError("never reached: the ids are refused first");
          }
        };
    try (PipelinedLoader l =
        new PipelinedLoader(
            List.of(good), small, GRAPH.features.dim(), FeatureNormKind.NONE, 2, 2)) {
      assertThatThrownBy(l::next)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("good.parquet")
          .hasMessageContaining("but the graph store has 10 vertices");
    }
    // a worker that has finished may take a moment to leave the thread table
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (fillThreadAlive() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(fillThreadAlive()).isFalse();
  }

  private static boolean fillThreadAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.isAlive() && t.getName().startsWith("fanout-fill-"));
  }
}
