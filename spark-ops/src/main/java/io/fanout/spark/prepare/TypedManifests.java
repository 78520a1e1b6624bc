package io.fanout.spark.prepare;

import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The manifest of a typed store from what its stages wrote: the {@code types} and {@code relations}
 * sections, and the one-table fields over the whole store (global partition table, totals).
 */
final class TypedManifests {
  private TypedManifests() {}

  static StoreManifest of(
      Map<String, TypeVertexStage.Result> types,
      List<TypedTables.RelationTable> relations,
      List<RelationEdgeStage.Result> written) {
    StoreManifest m = new StoreManifest();
    m.format = StoreManifest.TYPED_FORMAT;
    m.types = new ArrayList<>();
    m.relations = new ArrayList<>();
    m.featureDim = 0;
    m.featureEncoding = "";
    long vertices = 0;
    int partitions = 0;
    long[] splits = new long[4];
    String idType = null;
    for (Map.Entry<String, TypeVertexStage.Result> e : types.entrySet()) {
      TypeVertexStage.Result t = e.getValue();
      StoreManifest.TypeEntry te = new StoreManifest.TypeEntry();
      te.name = e.getKey();
      te.firstVertex = vertices;
      te.vertices = t.vertices();
      te.firstPartition = partitions;
      te.partitions = t.parts();
      te.featureDim = t.dim();
      te.featureEncoding = t.encoding();
      te.classes = t.classes();
      te.multiLabel = t.multiLabel();
      te.splitCounts = splitCounts(t.splits());
      te.idType = t.idType();
      m.types.add(te);
      for (int p = 0; p < t.parts(); p++) {
        m.partitionTable.add(
            new StoreManifest.Partition(
                partitions + p, vertices + t.firsts()[p], t.counts()[p], 0));
      }
      for (int s = 0; s < 4; s++) {
        splits[s] += t.splits()[s];
      }
      idType = idType == null || idType.equals(t.idType()) ? t.idType() : "mixed";
      vertices += t.vertices();
      partitions += t.parts();
    }
    Map<String, String> partners = ReverseRelations.partners(relations);
    long edges = 0;
    long degMin = Long.MAX_VALUE;
    long degMax = 0;
    long dangling = 0;
    for (int r = 0; r < relations.size(); r++) {
      TypedTables.RelationTable rel = relations.get(r);
      RelationEdgeStage.Result w = written.get(r);
      StoreManifest.RelationEntry re = new StoreManifest.RelationEntry();
      re.name = rel.name();
      re.srcType = rel.srcType();
      re.dstType = rel.dstType();
      re.edges = w.edges();
      re.reverseOf = partners.get(rel.name());
      re.addedReverse = rel.added();
      TypeVertexStage.Result dst = types.get(rel.dstType());
      re.degree =
          new StoreManifest.Degree(
              w.degMin(),
              w.degMax(),
              dst.vertices() == 0 ? 0 : round((double) re.edges / dst.vertices()));
      re.droppedDanglingEdges = w.dangling();
      re.partitionEdges = w.edgesPerPart().clone();
      re.weighted = w.weighted();
      m.weighted |= w.weighted();
      m.relations.add(re);
      int first = m.types.get(indexOf(m, rel.dstType())).firstPartition;
      for (int p = 0; p < re.partitionEdges.length; p++) {
        m.partitionTable.get(first + p).numEdges += re.partitionEdges[p];
      }
      edges += re.edges;
      degMin = Math.min(degMin, w.degMin());
      degMax = Math.max(degMax, w.degMax());
      dangling += w.dangling();
    }
    m.vertices = vertices;
    m.edges = edges;
    m.partitions = partitions;
    m.classes = 0;
    m.splitCounts = splitCounts(splits);
    m.degree =
        new StoreManifest.Degree(
            relations.isEmpty() ? 0 : degMin,
            degMax,
            vertices == 0 ? 0 : round((double) edges / vertices));
    m.idType = idType;
    m.droppedDanglingEdges = dangling;
    return m;
  }

  private static int indexOf(StoreManifest m, String type) {
    for (int t = 0; t < m.types.size(); t++) {
      if (m.types.get(t).name.equals(type)) {
        return t;
      }
    }
    throw new IllegalArgumentException(type);
  }

  private static Map<String, Long> splitCounts(long[] s) {
    Map<String, Long> out = new java.util.LinkedHashMap<>();
    out.put("train", s[StoreLayout.SPLIT_TRAIN]);
    out.put("val", s[StoreLayout.SPLIT_VAL]);
    out.put("test", s[StoreLayout.SPLIT_TEST]);
    out.put("none", s[StoreLayout.SPLIT_NONE]);
    return out;
  }

  private static double round(double x) {
    return Math.round(x * 1e6) / 1e6;
  }
}
