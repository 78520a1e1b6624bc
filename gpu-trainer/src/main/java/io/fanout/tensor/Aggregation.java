package io.fanout.tensor;

/** How a block's neighbor rows are combined. */
public enum Aggregation {
  MEAN,
  SUM
}
