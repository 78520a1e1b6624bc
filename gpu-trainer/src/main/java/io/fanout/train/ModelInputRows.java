package io.fanout.train;

import io.fanout.graph.FeatureTable;
import io.fanout.graph.GraphStore;
import io.fanout.nn.EmbeddingTable;
import io.fanout.nn.GnnModel;

/**
 * The input rows a model reads over a store, by dense vertex id: the store's feature rows, or the
 * rows of the model's learned input table ({@link GnnModel#embeddings()}) as a {@link
 * FeatureTable}, for full-graph and sampled inference.
 */
final class ModelInputRows {
  private ModelInputRows() {}

  static FeatureTable of(GnnModel model, GraphStore store) {
    EmbeddingTable t = model.embeddings();
    return t == null ? store.features() : of(t);
  }

  /** The rows of {@code t} as a read-only feature table (no encoded rows). */
  static FeatureTable of(EmbeddingTable t) {
    int rows = Math.toIntExact(t.rows());
    return new FeatureTable() {
      @Override
      public int numVertices() {
        return rows;
      }

      @Override
      public int dim() {
        return t.dim();
      }

      @Override
      public void gather(int[] ids, int from, int count, float[] out, int outOffset) {
        t.gather(ids, from, count, out, outOffset);
      }
    };
  }
}
