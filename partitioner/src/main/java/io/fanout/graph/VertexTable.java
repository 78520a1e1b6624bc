package io.fanout.graph;

/**
 * Labels and splits by dense vertex id. Split codes are those of {@link
 * io.fanout.store.StoreLayout} ({@code SPLIT_NONE}, {@code SPLIT_TRAIN}, {@code SPLIT_VAL}, {@code
 * SPLIT_TEST}). Thread-safe for reads.
 */
public interface VertexTable {
  int numVertices();

  /** The class label, or -1 when the vertex is unlabeled. */
  int label(int v);

  /** The split code of {@code v}. */
  byte split(int v);
}
