package io.fanout.train;

import io.fanout.nn.FeatureNormKind;
import io.fanout.tensor.RowNorms;

/** Row normalization applied to input features when they are gathered ({@link RowNorms}). */
public final class FeatureNorm {
  private FeatureNorm() {}

  /** Normalizes {@code rows} rows of width {@code dim} in place by {@code norm}. */
  public static void apply(FeatureNormKind norm, float[] x, int rows, int dim) {
    if (norm != FeatureNormKind.NONE) {
      RowNorms.normalize(x, 0, rows, dim, norm == FeatureNormKind.L1);
    }
  }
}
