package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.sample.MiniBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

class ShardedEpochDataTest {
  /** Batches 0..total-1 of one seed each; counts the batches it materializes. */
  static final class Source implements EpochData {
    final int total;
    final boolean knowsTotal;
    int produced;

    Source(int total, boolean knowsTotal) {
      this.total = total;
      this.knowsTotal = knowsTotal;
    }

    @Override
    public int batches(int epoch) {
      return knowsTotal ? total : -1;
    }

    @Override
    public BatchStream open(int epoch) {
      return open(epoch, b -> true);
    }

    @Override
    public BatchStream open(int epoch, IntPredicate keep) {
      return new BatchStream() {
        int b;

        @Override
        public TrainBatch next() {
          while (b < total && !keep.test(b)) {
            b++;
          }
          if (b >= total) {
            return null;
          }
          produced++;
          int i = b++;
          MiniBatch mb =
              new MiniBatch(
                  epoch, i, new int[] {i}, new int[] {1}, new int[0][], new int[0][], new int[1]);
          return TrainBatch.of(mb, new float[0], 0);
        }
      };
    }
  }

  private static List<Integer> drain(EpochData d) {
    List<Integer> out = new ArrayList<>();
    try (BatchStream s = d.open(0)) {
      TrainBatch b;
      while ((b = s.next()) != null) {
        out.add(b.batch().batch());
      }
    }
    return out;
  }

  @Test
  void eachWorkerGetsItsBatchesOfFullGroupsOnly() {
    for (int total : new int[] {0, 1, 2, 9, 10, 11}) {
      for (int workers = 1; workers <= 3; workers++) {
        List<Integer> all = new ArrayList<>();
        for (int r = 0; r < workers; r++) {
          Source known = new Source(total, true);
          List<Integer> mine = drain(new ShardedEpochData(known, r, workers));
          List<Integer> viaFallback =
              drain(new ShardedEpochData(new Source(total, false), r, workers));
          assertThat(mine).as("total %d, rank %d of %d", total, r, workers).isEqualTo(viaFallback);
          for (int i = 0; i < mine.size(); i++) {
            assertThat(mine.get(i)).isEqualTo(i * workers + r);
          }
          assertThat(mine).hasSize(total / workers);
          // The source was asked for this worker's batches only.
          assertThat(known.produced).isEqualTo(mine.size());
          all.addAll(mine);
        }
        assertThat(all).hasSize(total / workers * workers).doesNotHaveDuplicates();
      }
    }
  }
}
