package io.fanout.sample;

import java.util.Iterator;

/**
 * Samples a range of batches of one epoch on long-lived worker threads and delivers them in batch
 * order (SALIENT style). Workers claim batch indices in order and may run at most {@code capacity}
 * batches ahead of the consumer, so memory stays bounded; a worker's failure is rethrown by {@link
 * #next}. Output does not depend on the number of threads: each batch is a pure function of its
 * index. ({@link OrderedBatchStream} does the work, for typed batches too.)
 */
public final class BatchStream implements Iterator<MiniBatch>, AutoCloseable {
  private final OrderedBatchStream<MiniBatch> stream;

  /**
   * @param order the epoch's seeds ({@link SeedOrder#order}); batch {@code b} takes {@code
   *     order[b*batchSize ..]}, the last batch possibly partial
   * @param first first batch index, inclusive
   * @param end last batch index, exclusive
   * @param threads worker threads, at least 1
   * @param capacity batches sampled ahead of the consumer, at least 1
   */
  public BatchStream(
      BatchSampler sampler,
      int epoch,
      int[] order,
      int batchSize,
      int first,
      int end,
      int threads,
      int capacity) {
    this.stream =
        new OrderedBatchStream<>(
            () -> sampler.newWorker()::sample,
            epoch,
            order,
            batchSize,
            first,
            end,
            threads,
            capacity);
  }

  @Override
  public boolean hasNext() {
    return stream.hasNext();
  }

  @Override
  public MiniBatch next() {
    return stream.next();
  }

  /** Stops the workers (unfinished batches are dropped) and waits for them. */
  @Override
  public void close() {
    stream.close();
  }
}
