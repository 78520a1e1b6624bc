package io.fanout.shard;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.IntPredicate;
import java.util.function.ToIntFunction;

/**
 * The items of an iterator whose batch index {@code keep} accepts, in order (a data-parallel
 * worker's share of a part, read before anything is decoded). Closing it closes the iterator it
 * filters, when that is {@link AutoCloseable}.
 *
 * @param <T> a row or batch
 */
public final class KeptRows<T> implements Iterator<T>, AutoCloseable {
  private final Iterator<T> all;
  private final ToIntFunction<T> batch;
  private final IntPredicate keep;
  private T pending;

  /**
   * @param batch the batch index of an item
   */
  public KeptRows(Iterator<T> all, ToIntFunction<T> batch, IntPredicate keep) {
    this.all = all;
    this.batch = batch;
    this.keep = keep;
  }

  @Override
  public boolean hasNext() {
    while (pending == null && all.hasNext()) {
      T t = all.next();
      pending = keep.test(batch.applyAsInt(t)) ? t : null;
    }
    return pending != null;
  }

  @Override
  public T next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    T t = pending;
    pending = null;
    return t;
  }

  @Override
  public void close() {
    if (all instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException("closing " + all + " failed", e);
      }
    }
  }
}
