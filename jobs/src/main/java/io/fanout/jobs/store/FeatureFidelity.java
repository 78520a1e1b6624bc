package io.fanout.jobs.store;

import io.fanout.graph.FeatureTable;
import io.fanout.graph.GraphStore;
import io.fanout.store.InvalidInputException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code inspect --compare}: a store's decoded features against an f32 store of the same graph. */
final class FeatureFidelity {
  private FeatureFidelity() {}

  private static final int BATCH = 256;

  static Map<String, Object> measure(GraphStore store, Path reference) {
    try (GraphStore ref = GraphStore.open(reference)) {
      FeatureTable a = store.features();
      FeatureTable b = ref.features();
      if (!ref.manifest().featureEncoding.equals("f32")
          || a.numVertices() != b.numVertices()
          || a.dim() != b.dim()) {
        throw new InvalidInputException(
            "--compare "
                + reference
                + ": expected an f32 store of "
                + a.numVertices()
                + " vertices and "
                + a.dim()
                + " features, got "
                + ref.manifest().featureEncoding
                + " with "
                + b.numVertices()
                + " and "
                + b.dim());
      }
      int n = a.numVertices();
      int dim = a.dim();
      int[] ids = new int[BATCH];
      float[] x = new float[BATCH * dim];
      float[] y = new float[BATCH * dim];
      double max = 0;
      double sum = 0;
      long exactRows = 0;
      for (int from = 0; from < n; from += BATCH) {
        int count = Math.min(BATCH, n - from);
        for (int i = 0; i < count; i++) {
          ids[i] = from + i;
        }
        a.gather(ids, 0, count, x, 0);
        b.gather(ids, 0, count, y, 0);
        for (int i = 0; i < count; i++) {
          boolean exact = true;
          for (int c = i * dim; c < (i + 1) * dim; c++) {
            double d = Math.abs((double) x[c] - y[c]);
            max = Math.max(max, d);
            sum += d;
            exact &= d == 0;
          }
          exactRows += exact ? 1 : 0;
        }
      }
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("store", reference.toAbsolutePath().toString());
      out.put("max_abs_error", max);
      out.put("mean_abs_error", n == 0 || dim == 0 ? 0.0 : sum / ((double) n * dim));
      out.put("exact_rows", exactRows);
      return out;
    }
  }
}
