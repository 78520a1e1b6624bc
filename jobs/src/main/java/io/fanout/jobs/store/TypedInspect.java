package io.fanout.jobs.store;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import io.fanout.graph.FeatureRowOrder;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.graph.VertexTable;
import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code inspect} of a typed store: opens it (headers, lengths, optionally checksums), recomputes
 * each type's classes and split counts and each relation's degree range from the mapped files,
 * checks them against the manifest (and each type's feature layout to be a permutation keeping rows
 * in their partitions), and returns the summary: counts per type (with its feature layout) and per
 * relation (of a weighted relation also its weights' range and zero count).
 */
final class TypedInspect {
  private TypedInspect() {}

  static Map<String, Object> summary(Path root, boolean checksums) {
    try (TypedGraphStore g = TypedGraphStore.open(root, false)) {
      int verified = checksums ? g.verifyChecksums() : 0;
      StoreManifest m = g.manifest();
      TypedSchema s = g.schema();
      List<Map<String, Object>> types = new ArrayList<>();
      for (int t = 0; t < s.numTypes(); t++) {
        types.add(type(root, g, m.types.get(t), t));
      }
      List<Map<String, Object>> relations = new ArrayList<>();
      long edges = 0;
      for (int r = 0; r < s.numRelations(); r++) {
        relations.add(relation(root, g.inNeighbors(r), g.weights(r), m.relations.get(r)));
        edges += g.inNeighbors(r).numEdges();
      }
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("store", root.toAbsolutePath().toString());
      out.put("typed", true);
      out.put("vertices", s.numVertices());
      out.put("edges", edges);
      out.put("partitions", m.partitions);
      out.put("types", types);
      out.put("relations", relations);
      out.put("dropped_dangling_edges", m.droppedDanglingEdges);
      out.put("options", m.options);
      out.put("files_verified", verified);
      return out;
    }
  }

  private static Map<String, Object> type(
      Path root, TypedGraphStore g, StoreManifest.TypeEntry e, int t) {
    VertexTable vt = g.vertices(t);
    long[] splits = new long[4];
    int classes = 0;
    for (int v = 0; v < vt.numVertices(); v++) {
      byte sp = vt.split(v);
      if (sp < 0 || sp > 3) {
        throw new InvalidInputException(
            root
                + ": type '"
                + e.name
                + "' vertex "
                + v
                + " has split code "
                + sp
                + ", expected 0..3 (corrupted)");
      }
      splits[sp]++;
      if (e.multiLabel) {
        for (int c : g.labelSet(t, v)) {
          classes = Math.max(classes, c + 1);
        }
      } else {
        classes = Math.max(classes, vt.label(v) + 1);
      }
    }
    String where = "types '" + e.name + "' ";
    expect(root, where + "classes", classes, (long) e.classes);
    Map<String, Long> splitCounts = new LinkedHashMap<>();
    for (String name : new String[] {"train", "val", "test", "none"}) {
      long n = splits[StoreLayout.splitCode(name)];
      expect(root, where + "split_counts." + name, n, e.splitCounts.get(name));
      splitCounts.put(name, n);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("name", e.name);
    out.put("vertices", vt.numVertices());
    out.put("partitions", e.partitions);
    out.put("feature_dim", e.featureDim);
    out.put("feature_encoding", e.featureEncoding);
    if (e.featureDim > 0) {
      out.put("feature_layout", featureLayout(g, e, t));
    }
    out.put("classes", classes);
    out.put("multi_label", e.multiLabel);
    out.put("split_counts", splitCounts);
    out.put("id_type", e.idType);
    return out;
  }

  /**
   * The type's feature layout ({@code identity} when it has none), its order checked to be a
   * permutation keeping every row in its partition.
   */
  private static String featureLayout(TypedGraphStore g, StoreManifest.TypeEntry e, int t) {
    FeatureRowOrder order = g.featureRowOrder(t);
    if (order.isIdentity()) {
      return FeatureLayoutKind.IDENTITY.id();
    }
    long[] starts = g.partitionStarts(t);
    for (int p = 0; p + 1 < starts.length; p++) {
      int[] positions = new int[Math.toIntExact(starts[p + 1] - starts[p])];
      for (int i = 0; i < positions.length; i++) {
        positions[i] = order.position(Math.toIntExact(starts[p] + i));
      }
      FeatureRowOrder.checkPartition(
          positions, starts[p], "type '" + e.name + "' feature layout " + e.featureLayout);
    }
    return e.featureLayout;
  }

  private static Map<String, Object> relation(
      Path root, CsrGraph csr, EdgeWeights weights, StoreManifest.RelationEntry e) {
    int n = csr.numVertices();
    long min = n == 0 ? 0 : Long.MAX_VALUE;
    long max = 0;
    for (int v = 0; v < n; v++) {
      long d = csr.degree(v);
      min = Math.min(min, d);
      max = Math.max(max, d);
    }
    String where = "relations '" + e.name + "' ";
    expect(root, where + "degree.min", min, e.degree.min);
    expect(root, where + "degree.max", max, e.degree.max);
    Map<String, Object> degree = new LinkedHashMap<>();
    degree.put("min", min);
    degree.put("max", max);
    degree.put("mean", n == 0 ? 0.0 : Math.round((double) csr.numEdges() / n * 1e6) / 1e6);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("name", e.name);
    out.put("src_type", e.srcType);
    out.put("dst_type", e.dstType);
    out.put("edges", csr.numEdges());
    out.put("degree", degree);
    out.put("reverse_of", e.reverseOf);
    out.put("added_reverse", e.addedReverse);
    out.put("dropped_dangling_edges", e.droppedDanglingEdges);
    out.put("weighted", e.weighted);
    if (weights != null) {
      out.put("weights", weights(root, e.name, weights, csr.numEdges()));
    }
    return out;
  }

  /**
   * The range of a weighted relation's weights and how many are zero (never sampled), refusing one
   * that is negative or not finite (a damaged file: prepare writes none).
   */
  private static Map<String, Object> weights(
      Path root, String relation, EdgeWeights weights, long edges) {
    float min = Float.POSITIVE_INFINITY;
    float max = 0;
    long zero = 0;
    for (long p = 0; p < edges; p++) {
      float w = weights.weight(p);
      if (!(w >= 0) || Float.isInfinite(w)) {
        throw new InvalidInputException(
            root
                + ": relation '"
                + relation
                + "' edge "
                + p
                + " has weight "
                + w
                + ", expected a finite weight >= 0 (corrupted)");
      }
      min = Math.min(min, w);
      max = Math.max(max, w);
      zero += w == 0 ? 1 : 0;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("min", edges == 0 ? 0f : min);
    out.put("max", max);
    out.put("zero", zero);
    return out;
  }

  private static void expect(Path root, String field, long got, Long manifest) {
    if (manifest == null || got != manifest) {
      throw new InvalidInputException(
          root.resolve(StoreLayout.MANIFEST)
              + ": "
              + field
              + " is "
              + manifest
              + " but the store's files give "
              + got
              + " (corrupted or edited)");
    }
  }
}
