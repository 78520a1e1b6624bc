package io.fanout.train;

/** The batches of one epoch in a fixed order. */
public interface BatchStream extends AutoCloseable {
  /** The next batch, or null at the end. Blocks while the loader has none ready. */
  TrainBatch next();

  /** Returns a batch's buffers for reuse; the batch must not be used afterwards. */
  default void recycle(TrainBatch b) {}

  /** Nanoseconds {@link #next} spent waiting for data so far. */
  default long waitNanos() {
    return 0;
  }

  @Override
  default void close() {}
}
