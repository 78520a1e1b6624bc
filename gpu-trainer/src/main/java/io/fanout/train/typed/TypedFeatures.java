package io.fanout.train.typed;

import io.fanout.graph.FeatureTable;
import io.fanout.graph.TypedGraph;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.sample.TypedMiniBatch;
import java.util.function.IntPredicate;

/**
 * A typed batch's input feature rows, per type that reads features: the rows its shard inlined
 * ({@link TypedMiniBatch#inlineFeatures}, {@code sample --features}) where it carries them,
 * otherwise gathered from the graph; the same values either way when the shards inline the store's
 * own encoding. A type the model's backend reads in place ({@link TypedModel#readsInPlace}) gets
 * none: its node ids are all the step uploads.
 */
final class TypedFeatures {
  private TypedFeatures() {}

  static float[][] gather(TypedGraph g, TypedModelConfig cfg, TypedMiniBatch b) {
    return gather(g, cfg, b, t -> false);
  }

  /**
   * The input rows {@code model} takes from the host for {@code b}: none of types read in place.
   */
  static float[][] gather(TypedGraph g, TypedModel model, TypedMiniBatch b) {
    return gather(g, model.config(), b, model::readsInPlace);
  }

  /**
   * The input rows of {@code b} of {@code cfg}'s featured types but those {@code inPlace} takes.
   */
  static float[][] gather(
      TypedGraph g, TypedModelConfig cfg, TypedMiniBatch b, IntPredicate inPlace) {
    float[][] x = new float[cfg.numTypes()][];
    float[][] inline = b.inlineFeatures();
    for (int t = 0; t < cfg.numTypes(); t++) {
      if (cfg.type(t).embedded() || inPlace.test(t)) {
        continue;
      }
      int dim = cfg.type(t).featureDim();
      int[] ids = b.nodes(t);
      if (inline != null && inline[t] != null) {
        if (inline[t].length != (long) ids.length * dim) {
          throw new IllegalArgumentException(
              "type '" + cfg.type(t).name() + "' has inline feature rows not of width " + dim);
        }
        // the batch owns its rows: normalize a copy, so a batch read twice stays as read
        x[t] =
            cfg.featureNorm() == io.fanout.nn.FeatureNormKind.NONE ? inline[t] : inline[t].clone();
      } else {
        FeatureTable f = g.features(t);
        if (f == null || f.dim() != dim) {
          throw new IllegalArgumentException(
              "type '" + cfg.type(t).name() + "' has no feature rows of width " + dim);
        }
        x[t] = new float[Math.multiplyExact(ids.length, dim)];
        f.gather(ids, 0, ids.length, x[t], 0);
      }
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
