package io.fanout.train.typed;

import io.fanout.graph.FeatureTable;
import io.fanout.graph.TypedGraph;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.sample.TypedMiniBatch;

/** Gathers a typed batch's input feature rows from the graph, per type that reads features. */
final class TypedFeatures {
  private TypedFeatures() {}

  static float[][] gather(TypedGraph g, TypedModelConfig cfg, TypedMiniBatch b) {
    float[][] x = new float[cfg.numTypes()][];
    for (int t = 0; t < cfg.numTypes(); t++) {
      if (cfg.type(t).embedded()) {
        continue;
      }
      FeatureTable f = g.features(t);
      int dim = cfg.type(t).featureDim();
      if (f == null || f.dim() != dim) {
        throw new IllegalArgumentException(
            "type '" + cfg.type(t).name() + "' has no feature rows of width " + dim);
      }
      int[] ids = b.nodes(t);
      x[t] = new float[Math.multiplyExact(ids.length, dim)];
      f.gather(ids, 0, ids.length, x[t], 0);
      normalize(cfg, x[t], ids.length, dim);
    }
    return x;
  }

  /** Applies {@code cfg}'s feature norm to {@code rows} gathered rows of width {@code dim}. */
  static void normalize(TypedModelConfig cfg, float[] x, int rows, int dim) {
    if (cfg.featureNorm() != io.fanout.nn.FeatureNormKind.NONE) {
      io.fanout.tensor.RowNorms.normalize(
          x, 0, rows, dim, cfg.featureNorm() == io.fanout.nn.FeatureNormKind.L1);
    }
  }
}
