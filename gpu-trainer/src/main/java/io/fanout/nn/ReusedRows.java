package io.fanout.nn;

/**
 * The rows of layer 0's output that a training step takes from an embedding cache instead of
 * computing them: row {@code rows[i]} of the bottom block's destinations gets row {@code slots[i]}
 * of {@code embeddings} ({@code layerOutDim(0)} wide, row-major). Those rows pass no gradient to
 * layer 0's parameters. A reusable holder, filled per step; not thread-safe.
 */
public final class ReusedRows {
  private int count;
  private int[] rows;
  private int[] slots;
  private float[] embeddings;

  /** No reused rows. */
  public void clear() {
    count = 0;
    embeddings = null;
  }

  /** Rows {@code rows[0..count)} take slots {@code slots[0..count)} (arrays kept, not copied). */
  public void set(int count, int[] rows, int[] slots) {
    this.count = count;
    this.rows = rows;
    this.slots = slots;
  }

  /** The cache the slots index into. */
  public void embeddings(float[] embeddings) {
    this.embeddings = embeddings;
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

  float[] embeddings() {
    return embeddings;
  }
}
