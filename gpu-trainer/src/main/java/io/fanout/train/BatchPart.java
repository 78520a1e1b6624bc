package io.fanout.train;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.IntPredicate;

/** One sequentially read unit of an epoch's batches, e.g. one shard file. */
public interface BatchPart extends PartPipeline.Part<DecodedBatch> {
  /** Opens the part for reading; the iterator is closed by the loader when exhausted. */
  @Override
  Iterator<DecodedBatch> open();

  /**
   * Opens the part yielding only the batches whose index {@code keep} accepts. Parts that can skip
   * a batch before decoding or sampling it override this; the default decodes every batch.
   */
  default Iterator<DecodedBatch> open(IntPredicate keep) {
    Iterator<DecodedBatch> all = open();
    return new KeptBatches(all, keep);
  }

  /** A name for error messages (the file). */
  @Override
  String name();

  /** This part as read by {@link #open(IntPredicate)}: only the batches {@code keep} accepts. */
  default PartPipeline.Part<DecodedBatch> keeping(IntPredicate keep) {
    BatchPart all = this;
    return new PartPipeline.Part<>() {
      @Override
      public Iterator<DecodedBatch> open() {
        return all.open(keep);
      }

      @Override
      public String name() {
        return all.name();
      }
    };
  }

  /** The batches of an iterator that {@code keep} accepts; closes the iterator it filters. */
  final class KeptBatches implements Iterator<DecodedBatch>, AutoCloseable {
    private final Iterator<DecodedBatch> all;
    private final IntPredicate keep;
    private DecodedBatch pending;

    KeptBatches(Iterator<DecodedBatch> all, IntPredicate keep) {
      this.all = all;
      this.keep = keep;
    }

    @Override
    public boolean hasNext() {
      while (pending == null && all.hasNext()) {
        DecodedBatch d = all.next();
        if (keep.test(d.batch().batch())) {
          pending = d;
        }
      }
      return pending != null;
    }

    @Override
    public DecodedBatch next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      DecodedBatch d = pending;
      pending = null;
      return d;
    }

    @Override
    public void close() throws Exception {
      if (all instanceof AutoCloseable c) {
        c.close();
      }
    }
  }
}
