package io.fanout.train;

/**
 * One worker's share of an epoch for data-parallel training with the {@link Trainer} ({@link
 * WorkerShare}): the epoch's batches, in the order {@code inner} yields them, are taken in groups
 * of {@code N} consecutive batches; group {@code t} is global step {@code t}, and worker {@code r}
 * trains on batch {@code t·N + r}. A last group of fewer than {@code N} batches is dropped (every
 * worker must run the same number of steps), so up to {@code N-1} batches of an epoch are skipped;
 * with a shuffled seed order they differ from epoch to epoch.
 *
 * <p>Since the trainer's loss is the mean over a batch's labeled seeds and the reducer averages
 * over workers, a step's gradient is the mean over the group's {@code N·B} seeds when the batches
 * have equal labeled counts (full batches of labeled seeds), i.e. one process with global batch
 * {@code N·B}, up to float rounding and to neighbor sampling and dropout, which are keyed by batch.
 *
 * <p>When the source knows its batch count ({@link EpochData#batches}, as shard sets and on-the-fly
 * sampling do), each worker asks it for its own batches only, so the others' batches are never
 * decoded, gathered or sampled by this worker. Otherwise every worker reads all batches and hands
 * back those of the others; both paths select the same batches.
 */
public final class ShardedEpochData implements EpochData {
  private final EpochData inner;
  private final WorkerShare share;
  private final int rank;
  private final int workers;

  public ShardedEpochData(EpochData inner, int rank, int workers) {
    this.share = new WorkerShare(rank, workers);
    this.inner = inner;
    this.rank = rank;
    this.workers = workers;
  }

  @Override
  public int batches(int epoch) {
    int total = inner.batches(epoch);
    return total < 0 ? -1 : share.steps(total);
  }

  @Override
  public BatchStream open(int epoch) {
    return open(epoch, null, null);
  }

  /**
   * This worker's share, pruned for {@code hot} by {@code inner}'s loader; with a further selection
   * {@code keep}, the batches come as sampled (the trainer prunes them).
   */
  @Override
  public BatchStream open(int epoch, java.util.function.IntPredicate keep, HotSet hot) {
    if (keep != null) {
      return open(epoch, keep);
    }
    if (workers == 1) {
      return inner.open(epoch, null, hot);
    }
    int total = inner.batches(epoch);
    if (total >= 0) {
      return inner.open(epoch, share.keeps(total), hot);
    }
    BatchStream s = inner.open(epoch, null, hot);
    return new BatchStream() {
      @Override
      public TrainBatch next() {
        TrainBatch mine = null;
        for (int j = 0; j < workers; j++) {
          TrainBatch b = s.next();
          if (b == null) {
            if (mine != null) {
              s.recycle(mine); // incomplete last group: dropped on every worker
            }
            return null;
          }
          if (j == rank) {
            mine = b;
          } else {
            s.recycle(b);
          }
        }
        return mine;
      }

      @Override
      public void recycle(TrainBatch b) {
        s.recycle(b);
      }

      @Override
      public long waitNanos() {
        return s.waitNanos();
      }

      @Override
      public void close() {
        s.close();
      }
    };
  }
}
