package io.fanout.train;

/** The batches of one epoch in a fixed order, as the one-type trainer takes them. */
public interface BatchStream extends PreparedBatches<TrainBatch> {}
