package io.fanout.sample;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The engine of {@link BatchStream}, for any batch type (one-type {@link MiniBatch}, {@link
 * TypedMiniBatch}). Samples a range of batches of one epoch on long-lived worker threads and
 * delivers them in batch order (SALIENT style). Workers claim batch indices in order and may run at
 * most {@code capacity} batches ahead of the consumer, so memory stays bounded; a worker's failure
 * is rethrown by {@link #next}. Output does not depend on the number of threads: each batch is a
 * pure function of its index.
 */
public final class OrderedBatchStream<B> implements Iterator<B>, AutoCloseable {
  /** Samples one batch; one per worker thread, so it may keep scratch. */
  @FunctionalInterface
  public interface Worker<B> {
    /** Samples the batch whose seeds are {@code seeds[from .. from+count)}. */
    B sample(int epoch, int batch, int[] seeds, int from, int count);
  }

  private final Supplier<? extends Worker<B>> workers0;
  private final int epoch;
  private final int[] order;
  private final int batchSize;
  private final int end;
  private final Object[] slots;
  private final AtomicInteger nextToClaim;
  private final Thread[] workers;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition ready = lock.newCondition();
  private final Condition space = lock.newCondition();
  private int nextToDeliver;
  private Throwable failure;
  private int failedBatch;
  private boolean closed;

  /**
   * @param order the epoch's seeds ({@link SeedOrder#order}); batch {@code b} takes {@code
   *     order[b*batchSize ..]}, the last batch possibly partial
   * @param first first batch index, inclusive
   * @param end last batch index, exclusive
   * @param newWorker a new per-thread sampling state
   * @param threads worker threads, at least 1
   * @param capacity batches sampled ahead of the consumer, at least 1
   */
  public OrderedBatchStream(
      Supplier<? extends Worker<B>> newWorker,
      int epoch,
      int[] order,
      int batchSize,
      int first,
      int end,
      int threads,
      int capacity) {
    if (batchSize < 1 || threads < 1 || capacity < 1 || first < 0 || end < first) {
      throw new IllegalArgumentException("bad batch stream arguments");
    }
    if (end > SeedOrder.batches(order.length, batchSize)) {
      throw new IllegalArgumentException(
          "batch " + (end - 1) + " is past the " + order.length + " seeds");
    }
    this.workers0 = newWorker;
    this.epoch = epoch;
    this.order = order;
    this.batchSize = batchSize;
    this.end = end;
    this.slots = new Object[capacity];
    this.nextToClaim = new AtomicInteger(first);
    this.nextToDeliver = first;
    int n = Math.max(1, Math.min(threads, end - first));
    this.workers = new Thread[n];
    for (int t = 0; t < n; t++) {
      workers[t] = new Thread(this::work, "fanout-sampler-" + epoch + "-" + t);
      workers[t].setDaemon(true);
      workers[t].start();
    }
  }

  private void work() {
    Worker<B> w = workers0.get();
    int b = -1;
    try {
      while (true) {
        b = nextToClaim.getAndIncrement();
        if (b >= end) {
          return;
        }
        lock.lock();
        try {
          while (!closed && b - nextToDeliver >= slots.length) {
            space.await();
          }
          if (closed) {
            return;
          }
        } finally {
          lock.unlock();
        }
        int from = b * batchSize;
        int count = Math.min(batchSize, order.length - from);
        B mb = w.sample(epoch, b, order, from, count);
        lock.lock();
        try {
          slots[b % slots.length] = mb;
          ready.signalAll();
        } finally {
          lock.unlock();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable t) {
      lock.lock();
      try {
        if (failure == null) {
          failure = t;
          failedBatch = b;
        }
        ready.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  @Override
  public boolean hasNext() {
    return nextToDeliver < end;
  }

  @Override
  public B next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    lock.lock();
    try {
      int s = nextToDeliver % slots.length;
      while (slots[s] == null) {
        if (failure != null) {
          throw new IllegalStateException(
              "sampling batch " + failedBatch + " of epoch " + epoch + " failed", failure);
        }
        if (closed) {
          throw new IllegalStateException("batch stream closed");
        }
        ready.await();
      }
      @SuppressWarnings("unchecked")
      B mb = (B) slots[s];
      slots[s] = null;
      nextToDeliver++;
      space.signalAll();
      return mb;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a batch", e);
    } finally {
      lock.unlock();
    }
  }

  /** Stops the workers (unfinished batches are dropped) and waits for them. */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      space.signalAll();
      ready.signalAll();
    } finally {
      lock.unlock();
    }
    for (Thread t : workers) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
