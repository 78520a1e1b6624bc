package io.fanout.train;

import java.util.function.IntPredicate;

/** The batches of each epoch. */
@FunctionalInterface
public interface EpochData {
  /** Opens epoch {@code epoch}'s batches (0-based); the caller closes the stream. */
  BatchStream open(int epoch);

  /**
   * The number of batches of epoch {@code epoch}, or -1 when it is not known before reading it.
   * Sources that know it let data-parallel workers select their share without reading the rest.
   */
  default int batches(int epoch) {
    return -1;
  }

  /**
   * Opens epoch {@code epoch}'s batches whose index {@code keep} accepts (null: all), pruned for
   * the reused rows of {@code hot} (null: none) before their features are gathered, so that the
   * feature rows only hot rows reach are never read ({@link HotPruner}). Sources whose loader
   * gathers override this; the default opens the batches as sampled, and the trainer prunes them
   * after the gather.
   */
  default BatchStream open(int epoch, IntPredicate keep, HotSet hot) {
    return keep == null ? open(epoch) : open(epoch, keep);
  }

  /**
   * Opens epoch {@code epoch}'s batches whose index {@code keep} accepts, in order. Sources that
   * can skip a batch before reading, decoding or sampling it override this; the default reads every
   * batch and hands the others back.
   */
  default BatchStream open(int epoch, IntPredicate keep) {
    BatchStream all = open(epoch);
    return new BatchStream() {
      @Override
      public TrainBatch next() {
        TrainBatch b;
        while ((b = all.next()) != null && !keep.test(b.batch().batch())) {
          all.recycle(b);
        }
        return b;
      }

      @Override
      public void recycle(TrainBatch b) {
        all.recycle(b);
      }

      @Override
      public long waitNanos() {
        return all.waitNanos();
      }

      @Override
      public void close() {
        all.close();
      }
    };
  }
}
