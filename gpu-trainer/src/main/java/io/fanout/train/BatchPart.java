package io.fanout.train;

import io.fanout.shard.KeptRows;
import java.util.Iterator;
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
    return new KeptRows<>(open(), d -> d.batch().batch(), keep);
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
}
