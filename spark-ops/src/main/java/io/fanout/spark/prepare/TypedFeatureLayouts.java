package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConfigException;
import io.fanout.graph.TypedStagedGraph;
import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.StoreLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What typed {@code prepare --feature-layout seed-groups} (or {@code neighborhood}) needs besides
 * its stage ({@link TypedFeatureLayoutStage}): the seeds' type, the only labelled type, and the
 * staged store's shape from what the type and relation stages wrote.
 */
final class TypedFeatureLayouts {
  private TypedFeatureLayouts() {}

  /**
   * The seeds' type of a layout: the only type with a label or labels column.
   *
   * @throws FanoutConfigException naming the labelled types when there is not exactly one
   */
  static String target(List<TypedTables.TypeTable> types, FeatureLayoutKind kind) {
    List<String> labelled = new ArrayList<>();
    for (TypedTables.TypeTable t : types) {
      if (t.labelColumn() != null || t.labelsColumn() != null) {
        labelled.add(t.name());
      }
    }
    if (labelled.size() != 1) {
      throw new FanoutConfigException(
          "prepare --feature-layout "
              + kind.id()
              + " on a typed graph orders rows by first use from the training seeds of the one"
              + " labelled type; the graph has "
              + (labelled.isEmpty() ? "none" : labelled.size() + ": " + labelled));
    }
    return labelled.get(0);
  }

  /** The shape of the staged store the layout reads. */
  static TypedStagedGraph staged(
      Map<String, TypeVertexStage.Result> types,
      List<TypedTables.RelationTable> relations,
      RelationEdgeStage.Result[] written,
      String target) {
    List<String> names = new ArrayList<>(types.keySet());
    int n = names.size();
    long[][] starts = new long[n][];
    boolean[] features = new boolean[n];
    for (int t = 0; t < n; t++) {
      TypeVertexStage.Result r = types.get(names.get(t));
      starts[t] = r.firsts().clone();
      features[t] = r.dim() > 0;
    }
    int rels = relations.size();
    String[] relNames = new String[rels];
    int[] src = new int[rels];
    int[] dst = new int[rels];
    long[][] edges = new long[rels][];
    for (int r = 0; r < rels; r++) {
      relNames[r] = relations.get(r).name();
      src[r] = names.indexOf(relations.get(r).srcType());
      dst[r] = names.indexOf(relations.get(r).dstType());
      edges[r] = written[r].edgesPerPart().clone();
    }
    int t = names.indexOf(target);
    boolean everySeed = types.get(target).splits()[StoreLayout.SPLIT_TRAIN] == 0;
    return new TypedStagedGraph(
        names.toArray(new String[0]), starts, features, relNames, src, dst, edges, t, everySeed);
  }
}
