package io.fanout.store;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The consistency checks of a typed store's manifest ({@link StoreManifest#TYPED_FORMAT}): types
 * cover the dense ids and the partitions in order, each partition inside one type; relations name
 * known types and list one edge count per partition of their destination type; the partition
 * table's edges are the sums of the relations' edges into each partition.
 */
final class TypedManifestCheck {
  private TypedManifestCheck() {}

  static void check(String source, StoreManifest m) {
    List<StoreManifest.TypeEntry> types = m.types;
    if (types == null || types.isEmpty() || m.relations == null) {
      throw bad(source, "a typed store needs 'types' (at least one) and 'relations'");
    }
    Map<String, StoreManifest.TypeEntry> byName = new HashMap<>();
    long nextVertex = 0;
    int nextPartition = 0;
    for (StoreManifest.TypeEntry t : types) {
      if (!StoreLayout.validName(t.name) || byName.put(t.name, t) != null) {
        throw bad(source, "type name '" + t.name + "' is repeated or not " + StoreLayout.NAME_RULE);
      }
      if (t.firstVertex != nextVertex
          || t.vertices < 0
          || t.firstPartition != nextPartition
          || t.partitions < 1
          || t.featureDim < 0) {
        throw bad(
            source,
            "type '"
                + t.name
                + "' does not start where the previous one ends (first_vertex "
                + t.firstVertex
                + ", expected "
                + nextVertex
                + "; first_partition "
                + t.firstPartition
                + ", expected "
                + nextPartition
                + ") or has no partition");
      }
      long sum = 0;
      for (int p = t.firstPartition; p < t.firstPartition + t.partitions; p++) {
        if (p >= m.partitionTable.size()) {
          throw bad(source, "type '" + t.name + "' names partitions beyond partition_table");
        }
        sum += m.partitionTable.get(p).numVertices;
      }
      if (sum != t.vertices) {
        throw bad(
            source, "type '" + t.name + "' has " + t.vertices + " vertices, its partitions " + sum);
      }
      if (t.featureLayout != null
          && (t.featureDim == 0
              || !(FeatureLayoutKind.SEED_GROUPS.id().equals(t.featureLayout)
                  || FeatureLayoutKind.NEIGHBORHOOD.id().equals(t.featureLayout)))) {
        throw bad(
            source,
            "type '"
                + t.name
                + "' has feature_layout '"
                + t.featureLayout
                + "'; a typed store records only "
                + FeatureLayoutKind.SEED_GROUPS.id()
                + " or "
                + FeatureLayoutKind.NEIGHBORHOOD.id()
                + ", on types with features");
      }
      nextVertex += t.vertices;
      nextPartition += t.partitions;
    }
    if (nextVertex != m.vertices || nextPartition != m.partitions) {
      throw bad(
          source,
          "types cover "
              + nextVertex
              + " vertices and "
              + nextPartition
              + " partitions, manifest says "
              + m.vertices
              + " and "
              + m.partitions);
    }
    long[] edgesInto = new long[m.partitions];
    Map<String, Integer> relations = new HashMap<>();
    for (StoreManifest.RelationEntry r : m.relations) {
      if (!StoreLayout.validName(r.name) || relations.put(r.name, 0) != null) {
        throw bad(
            source, "relation name '" + r.name + "' is repeated or not " + StoreLayout.NAME_RULE);
      }
      StoreManifest.TypeEntry src = byName.get(r.srcType);
      StoreManifest.TypeEntry dst = byName.get(r.dstType);
      if (src == null || dst == null) {
        throw bad(
            source,
            "relation '"
                + r.name
                + "' names an unknown type ('"
                + r.srcType
                + "', '"
                + r.dstType
                + "')");
      }
      if (r.partitionEdges == null || r.partitionEdges.length != dst.partitions) {
        throw bad(
            source,
            "relation '"
                + r.name
                + "' lists "
                + (r.partitionEdges == null ? 0 : r.partitionEdges.length)
                + " partition_edges, its destination type '"
                + dst.name
                + "' has "
                + dst.partitions
                + " partitions");
      }
      long sum = 0;
      for (int i = 0; i < r.partitionEdges.length; i++) {
        if (r.partitionEdges[i] < 0) {
          throw bad(source, "relation '" + r.name + "' has a negative partition edge count");
        }
        sum += r.partitionEdges[i];
        edgesInto[dst.firstPartition + i] += r.partitionEdges[i];
      }
      if (sum != r.edges) {
        throw bad(
            source, "relation '" + r.name + "' has " + r.edges + " edges, its partitions " + sum);
      }
    }
    for (int p = 0; p < m.partitions; p++) {
      if (m.partitionTable.get(p).numEdges != edgesInto[p]) {
        throw bad(
            source,
            "partition "
                + p
                + " has "
                + m.partitionTable.get(p).numEdges
                + " edges, the relations into it "
                + edgesInto[p]);
      }
    }
  }

  private static InvalidInputException bad(String source, String what) {
    return new InvalidInputException(source + ": " + what);
  }
}
