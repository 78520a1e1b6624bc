package io.fanout.bench.sample;

import io.fanout.graph.VertexTable;
import java.util.function.IntUnaryOperator;

/** Generated {@link VertexTable}s for the benchmarks, given by functions of the vertex id. */
public final class VertexTables {
  private VertexTables() {}

  /**
   * The table of {@code n} vertices whose label is {@code label(v)} (-1: unlabelled) and split code
   * {@code split(v)} (a {@link io.fanout.store.StoreLayout} split code).
   */
  public static VertexTable of(int n, IntUnaryOperator label, IntUnaryOperator split) {
    return new VertexTable() {
      @Override
      public int numVertices() {
        return n;
      }

      @Override
      public int label(int v) {
        return label.applyAsInt(v);
      }

      @Override
      public byte split(int v) {
        return (byte) split.applyAsInt(v);
      }
    };
  }
}
