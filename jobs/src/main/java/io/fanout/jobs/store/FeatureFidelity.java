package io.fanout.jobs.store;

import io.fanout.graph.FeatureTable;
import io.fanout.graph.GraphStore;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreManifest;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code inspect --compare}: a store's decoded features against an f32 store of the same graph; on
 * a typed store, per featured type against the same type of a typed store that keeps it in f32.
 */
final class FeatureFidelity {
  private FeatureFidelity() {}

  private static final int BATCH = 256;

  static Map<String, Object> measure(GraphStore store, Path reference) {
    if (StoreManifest.read(reference).typed()) {
      throw new InvalidInputException(
          "--compare " + reference + ": expected a one-type f32 store, got a typed store");
    }
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
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("store", reference.toAbsolutePath().toString());
      out.putAll(errors(a, b));
      return out;
    }
  }

  /**
   * Per featured type of {@code store} (in type order), its decoded rows against the same type's
   * rows in {@code reference}, a typed store of the same types in which each of them keeps f32 rows
   * of the same count and width: {@code {"store": REF, "types": {"paper": {"feature_encoding": ...,
   * "max_abs_error": ..., "mean_abs_error": ..., "exact_rows": ...}, ...}}}. Featureless types are
   * not listed.
   */
  static Map<String, Object> measureTyped(TypedGraphStore store, Path reference) {
    if (!StoreManifest.read(reference).typed()) {
      throw new InvalidInputException(
          "--compare " + reference + ": expected a typed f32 store, got a one-type store");
    }
    try (TypedGraphStore ref = TypedGraphStore.open(reference, false)) {
      TypedSchema s = store.schema();
      TypedSchema r = ref.schema();
      Map<String, Object> types = new LinkedHashMap<>();
      for (int t = 0; t < s.numTypes(); t++) {
        TypedSchema.VertexType vt = s.type(t);
        if (!vt.hasFeatures()) {
          continue;
        }
        int u = r.typeIndex(vt.name());
        TypedSchema.VertexType rt = u < 0 ? null : r.type(u);
        if (rt == null
            || !rt.featureEncoding().equals("f32")
            || rt.count() != vt.count()
            || rt.featureDim() != vt.featureDim()) {
          throw new InvalidInputException(
              "--compare "
                  + reference
                  + ": expected type '"
                  + vt.name()
                  + "' with f32 features of "
                  + vt.count()
                  + " vertices and "
                  + vt.featureDim()
                  + " features, got "
                  + (rt == null
                      ? "no such type"
                      : (rt.featureEncoding().isEmpty() ? "no features" : rt.featureEncoding())
                          + " with "
                          + rt.count()
                          + " and "
                          + rt.featureDim()));
        }
        Map<String, Object> one = new LinkedHashMap<>();
        one.put("feature_encoding", vt.featureEncoding());
        one.putAll(errors(store.features(t), ref.features(u)));
        types.put(vt.name(), one);
      }
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("store", reference.toAbsolutePath().toString());
      out.put("types", types);
      return out;
    }
  }

  /**
   * The largest and the mean absolute difference of {@code a}'s and {@code b}'s rows, and how many
   * rows are equal in every feature.
   */
  private static Map<String, Object> errors(FeatureTable a, FeatureTable b) {
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
    out.put("max_abs_error", max);
    out.put("mean_abs_error", n == 0 || dim == 0 ? 0.0 : sum / ((double) n * dim));
    out.put("exact_rows", exactRows);
    return out;
  }
}
