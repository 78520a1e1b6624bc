package io.fanout.nn;

import io.fanout.tensor.FloatTensor;

/**
 * The rows of layer 0's output that a training step takes from an embedding cache instead of
 * computing them. Layer 0 runs on a pruned bottom block whose {@code computed} destinations are
 * rows {@code rowOf[0..computed)} of the full block ({@code fullRows} destinations, the next
 * layer's input); row {@code rows[i]} of the full block gets row {@code slots[i]} of {@code
 * embeddings} ({@code layerOutDim(0)} wide, row-major, a tensor of the model's backend). Those rows
 * pass no gradient to layer 0's parameters; with a {@link #gradientSink} their output gradient is
 * appended there, by slot, for a deferred backward. A reusable holder, filled per step; not
 * thread-safe.
 */
public final class ReusedRows {
  private int count;
  private int[] rows;
  private int[] slots;
  private int computed;
  private int[] rowOf;
  private int fullRows;
  private FloatTensor embeddings;
  private ReusedGradients sink;
  private boolean inputs;

  /** No reused rows. */
  public void clear() {
    count = 0;
    embeddings = null;
    sink = null;
    inputs = false;
  }

  /**
   * Whether the cache holds layer 0's aggregated inputs (a GraphSAGE row {@code [x_v | mean of its
   * sampled neighbors' rows]}, {@code 2 x in} wide) rather than its outputs: then layer 0 computes
   * its products over every row, the reused ones included, with the current parameters, and every
   * row passes its gradient to them.
   */
  public void inputs(boolean inputs) {
    this.inputs = inputs;
  }

  boolean inputs() {
    return inputs;
  }

  /**
   * Rows {@code rows[0..count)} of the full block take slots {@code slots[0..count)}; layer 0
   * computes rows {@code rowOf[0..computed)} (increasing), and the full block has {@code fullRows}
   * destinations, {@code count + computed} of them. The arrays are kept, not copied.
   */
  public void set(int count, int[] rows, int[] slots, int computed, int[] rowOf, int fullRows) {
    if (count + computed != fullRows) {
      throw new IllegalArgumentException(
          count + " reused and " + computed + " computed rows for a block of " + fullRows);
    }
    this.count = count;
    this.rows = rows;
    this.slots = slots;
    this.computed = computed;
    this.rowOf = rowOf;
    this.fullRows = fullRows;
  }

  /** The cache the slots index into. */
  public void embeddings(FloatTensor embeddings) {
    this.embeddings = embeddings;
  }

  /**
   * Where the backward appends the gradient of the reused rows' outputs, that of row {@code
   * rows[i]} for slot {@code slots[i]}. Null: dropped.
   */
  public void gradientSink(ReusedGradients sink) {
    this.sink = sink;
  }

  ReusedGradients gradientSink() {
    return sink;
  }

  public int count() {
    return count;
  }

  int row(int i) {
    return rows[i];
  }

  int slot(int i) {
    return slots[i];
  }

  int computed() {
    return computed;
  }

  int rowOf(int k) {
    return rowOf[k];
  }

  int fullRows() {
    return fullRows;
  }

  FloatTensor embeddings() {
    return embeddings;
  }
}
