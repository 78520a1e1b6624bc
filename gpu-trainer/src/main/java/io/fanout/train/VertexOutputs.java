package io.fanout.train;

import io.fanout.graph.GraphStore;
import io.fanout.nn.GnnModel;
import io.fanout.store.Cancellation;
import io.fanout.store.InvalidInputException;

/** Per-vertex outputs of a model over a store: full-neighbor or sampled. */
final class VertexOutputs {
  private VertexOutputs() {}

  /**
   * Per-vertex logits of the model in {@code modelDir}: full-neighbor (layer-wise) when {@code
   * fanouts} is null, else sampled with {@code fanouts} in batches of {@code batchSize} over the
   * vertices of {@code splitCode} ({@code -1}: all vertices; other rows stay 0).
   */
  static float[] logits(
      GnnModel model, GraphStore store, int[] fanouts, int batchSize, long seed, int splitCode) {
    return outputs(model, store, fanouts, batchSize, seed, splitCode, false).logits();
  }

  /**
   * As {@link #logits}, with the last hidden layer's outputs too when {@code keepHidden} (and the
   * model has a hidden layer), taken from the same forward pass.
   */
  static FullGraphInference.Outputs outputs(
      GnnModel model,
      GraphStore store,
      int[] fanouts,
      int batchSize,
      long seed,
      int splitCode,
      boolean keepHidden) {
    if (fanouts == null) {
      FullGraphInference.Outputs o =
          FullGraphInference.outputs(model, store.csr(), ModelInputRows.of(model, store), 4096);
      return keepHidden ? o : new FullGraphInference.Outputs(o.logits(), null);
    }
    if (fanouts.length != model.numLayers()) {
      throw new InvalidInputException(
          "--fanouts has "
              + fanouts.length
              + " hops but the model has "
              + model.numLayers()
              + " layers");
    }
    int n = store.csr().numVertices();
    int count = 0;
    for (int v = 0; v < n; v++) {
      count += splitCode < 0 || store.vertices().split(v) == splitCode ? 1 : 0;
    }
    int[] seeds = new int[count];
    for (int v = 0, i = 0; v < n; v++) {
      if (splitCode < 0 || store.vertices().split(v) == splitCode) {
        seeds[i++] = v;
      }
    }
    int classes = model.config().classes();
    int hiddenLayer = keepHidden ? model.numLayers() - 2 : -1;
    int dim = hiddenLayer >= 0 ? model.layerOutDim(hiddenLayer) : 0;
    float[] out = new float[Math.multiplyExact(n, classes)];
    float[] hidden = hiddenLayer >= 0 ? new float[Math.multiplyExact(n, dim)] : null;
    if (count == 0) {
      return new FullGraphInference.Outputs(out, hidden);
    }
    SampledEpochs se =
        new SampledEpochs(
            store.csr(),
            store.vertices(),
            ModelInputRows.of(model, store),
            seeds,
            fanouts,
            batchSize,
            seed,
            false,
            model.config().featureNorm(),
            2);
    try (BatchStream s = se.open(0)) {
      TrainBatch b;
      while ((b = s.next()) != null) {
        Cancellation.check("sampled inference");
        float[] lg = model.forward(io.fanout.nn.Block.of(b.batch()), b.features(), false, 0L);
        // The seeds are the first destinations of every block, so the first rows of the hidden
        // layer's output are theirs.
        float[] h = hidden != null ? model.layerOutput(hiddenLayer) : null;
        int[] nodes = b.batch().nodes();
        for (int i = 0; i < b.batch().numSeeds(); i++) {
          System.arraycopy(lg, i * classes, out, nodes[i] * classes, classes);
          if (h != null) {
            System.arraycopy(h, i * dim, hidden, nodes[i] * dim, dim);
          }
        }
        s.recycle(b);
      }
    }
    return new FullGraphInference.Outputs(out, hidden);
  }
}
