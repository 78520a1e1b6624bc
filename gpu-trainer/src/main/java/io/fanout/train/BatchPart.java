package io.fanout.train;

import java.util.Iterator;

/** One sequentially read unit of an epoch's batches, e.g. one shard file. */
public interface BatchPart {
  /** Opens the part for reading; the iterator is closed by the loader when exhausted. */
  Iterator<DecodedBatch> open();

  /** A name for error messages (the file). */
  String name();
}
