package io.fanout.train;

/**
 * The batches of one epoch in a fixed order, each prepared for the step (its inputs gathered), as a
 * loader hands them out: the one-type {@link BatchStream} and the typed trainers' stream.
 *
 * @param <B> a prepared batch
 */
public interface PreparedBatches<B> extends AutoCloseable {
  /** The next batch, or null at the end. Blocks while the loader has none ready. */
  B next();

  /** Returns a batch's buffers for reuse; the batch must not be used afterwards. */
  default void recycle(B b) {}

  /** Nanoseconds {@link #next} spent waiting for data so far (0 when prepared on demand). */
  default long waitNanos() {
    return 0;
  }

  /** Stops whatever prepares the batches (no thread outlives the stream). */
  @Override
  default void close() {}
}
