package io.fanout.train.typed;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.graph.VertexTable;
import java.util.ArrayList;
import java.util.List;

/**
 * A typed graph whose type 0 is multi-label: vertex {@code v}'s set holds {@code label(v)} and,
 * when {@code v % 2 == 0}, class 3 too (4 classes).
 */
final class MultiLabelGraph implements TypedGraph {
  private final TypedGraph g;
  private final TypedSchema schema;

  private MultiLabelGraph(TypedGraph g) {
    this.g = g;
    List<TypedSchema.VertexType> types = new ArrayList<>(g.schema().types());
    TypedSchema.VertexType t = types.get(0);
    types.set(
        0,
        new TypedSchema.VertexType(
            t.name(), t.firstVertex(), t.count(), t.featureDim(), t.featureEncoding(), 4, true));
    schema = new TypedSchema(types, g.schema().relations());
  }

  static MultiLabelGraph of(TypedGraph g) {
    return new MultiLabelGraph(g);
  }

  @Override
  public TypedSchema schema() {
    return schema;
  }

  @Override
  public CsrGraph inNeighbors(int relation) {
    return g.inNeighbors(relation);
  }

  @Override
  public VertexTable vertices(int type) {
    return g.vertices(type);
  }

  @Override
  public int[] labelSet(int type, int v) {
    int l = g.vertices(type).label(v);
    return v % 2 == 0 ? new int[] {l, 3} : new int[] {l};
  }

  @Override
  public FeatureTable features(int type) {
    return g.features(type);
  }
}
