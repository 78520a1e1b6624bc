package io.fanout.bench.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.graph.VertexTable;
import io.fanout.sample.SampleHash;
import java.util.ArrayList;
import java.util.List;

/**
 * An in-memory typed graph for benchmarks, the typed counterpart of {@link SyntheticGraph}: {@code
 * T} vertex types of equal size ({@code t0 .. t(T-1)}, together the requested vertex count) and
 * {@code 2T} relations, {@code ti_ti} and {@code ti_t(i+1 mod T)}, sharing the requested edges
 * equally. Each relation's in-degrees follow the same Zipf-like law as {@link SyntheticGraph}'s and
 * its in-neighbors are uniform over the source type, so every vertex has two in-relations holding
 * the one-type graph's average in-degree together. Every {@code t0} vertex is a labelled seed.
 * Deterministic in the seed.
 */
final class SyntheticTypedGraph implements TypedGraph {
  private final TypedSchema schema;
  private final CsrGraph[] relations;
  private final VertexTable[] vertices;

  private SyntheticTypedGraph(TypedSchema schema, CsrGraph[] relations, VertexTable[] vertices) {
    this.schema = schema;
    this.relations = relations;
    this.vertices = vertices;
  }

  static SyntheticTypedGraph generate(int types, int vertices, long edges, long seed) {
    if (types < 2) {
      throw new IllegalArgumentException("a typed benchmark graph needs at least 2 types");
    }
    int per = vertices / types;
    if (per < 1) {
      throw new IllegalArgumentException(vertices + " vertices cannot make " + types + " types");
    }
    List<TypedSchema.VertexType> vt = new ArrayList<>();
    for (int t = 0; t < types; t++) {
      vt.add(
          new TypedSchema.VertexType("t" + t, (long) t * per, per, 0, "", t == 0 ? 10 : 0, false));
    }
    int count = 2 * types;
    List<TypedSchema.Relation> rel = new ArrayList<>();
    CsrGraph[] csr = new CsrGraph[count];
    for (int r = 0; r < count; r++) {
      int dst = r / 2;
      int src = r % 2 == 0 ? dst : (dst + 1) % types;
      long e = edges / count + (r < edges % count ? 1 : 0);
      csr[r] = SyntheticGraph.generate(per, per, e, SampleHash.mix(seed + 131L * r));
      rel.add(new TypedSchema.Relation("t" + src + "_t" + dst, src, dst, e));
    }
    VertexTable[] tables = new VertexTable[types];
    tables[0] = SyntheticGraph.vertices(per);
    for (int t = 1; t < types; t++) {
      tables[t] = unlabelled(per);
    }
    return new SyntheticTypedGraph(new TypedSchema(vt, rel), csr, tables);
  }

  private static VertexTable unlabelled(int n) {
    return VertexTables.of(n, v -> -1, v -> 0);
  }

  @Override
  public TypedSchema schema() {
    return schema;
  }

  @Override
  public CsrGraph inNeighbors(int relation) {
    return relations[relation];
  }

  @Override
  public VertexTable vertices(int type) {
    return vertices[type];
  }

  @Override
  public FeatureTable features(int type) {
    return null;
  }
}
