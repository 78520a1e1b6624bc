package io.fanout.features;

/**
 * Orders a {@link RowCache}'s writes after the in-place reads of the batches resolved before them:
 * batch {@code k} (numbered from 1 in resolve order) may overwrite slots only once the reader has
 * {@link #release released} batch {@code k - 1}, so a device still reading a batch's slots never
 * sees them change. One resolver at a time (a cache's loaders take turns); the trainer releases
 * from its own thread. A loader closed with batches still queued releases its last one: those
 * batches will never be read.
 */
public final class ReadFence {
  private long resolved;
  private long released;

  /**
   * Waits until every batch before the next one is released, then numbers it. An interrupted wait
   * numbers nothing, so the sequence has no gap for a later batch to wait on.
   */
  synchronized long next() throws InterruptedException {
    while (released < resolved) {
      wait();
    }
    return ++resolved;
  }

  /** The reader is done with batch {@code k} (and so with every batch before it). */
  public synchronized void release(long k) {
    if (k > released) {
      released = k;
      notifyAll();
    }
  }
}
