package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TypedGraphStore#openPartition} (only one partition's files mapped) and {@link
 * TypedStorePartition#view} (over the whole graph) serve every owned vertex's label, split, label
 * set and in-neighbor rows as the graph the store was written from, over partitions of uneven sizes
 * (one empty); anything not owned is refused.
 */
class TypedStorePartitionTest {
  @TempDir Path tmp;

  @Test
  void eachPartitionServesItsOwnVerticesAsTheWholeGraph() {
    ArrayTypedGraph want = TypedGraphStoreTest.graph(5);
    Path store = tmp.resolve("store");
    TypedStoreFixtures.write(store, want, TypedGraphStoreTest.SIZES, TypedGraphStoreTest.SETS);
    TypedSchema s = want.schema();
    try (TypedGraphStore g = TypedGraphStore.open(store, true)) {
      for (int t = 0; t < s.numTypes(); t++) {
        long[] starts = g.partitionStarts(t);
        int[] sizes = TypedGraphStoreTest.SIZES[t];
        assertThat(starts).hasSize(sizes.length + 1);
        for (int p = 0; p < sizes.length; p++) {
          assertThat(starts[p + 1] - starts[p]).isEqualTo(sizes[p]);
          TypedStorePartition mapped = TypedGraphStore.openPartition(store, t, p);
          TypedStorePartition view = TypedStorePartition.view(want, t, starts[p], starts[p + 1]);
          for (TypedStorePartition part : List.of(mapped, view)) {
            assertThat(part.firstVertex()).isEqualTo(starts[p]);
            assertThat(part.endVertex()).isEqualTo(starts[p + 1]);
            for (int v = (int) starts[p]; v < starts[p + 1]; v++) {
              assertThat(part.label(v)).isEqualTo(want.vertices(t).label(v));
              assertThat(part.split(v)).isEqualTo(want.vertices(t).split(v));
              if (s.type(t).multiLabel()) {
                assertThat(part.labelSet(v)).isEqualTo(want.labelSet(t, v));
              }
              for (int r = 0; r < s.numRelations(); r++) {
                if (s.relation(r).dstType() == t) {
                  assertThat(row(part.inNeighbors(r), v)).isEqualTo(row(want.inNeighbors(r), v));
                }
              }
            }
            int outside = (int) starts[p + 1];
            assertThatThrownBy(() -> part.label(outside)).hasMessageContaining("is not owned");
            for (int r = 0; r < s.numRelations(); r++) {
              if (s.relation(r).dstType() != t) {
                int rel = r;
                assertThatThrownBy(() -> part.inNeighbors(rel))
                    .hasMessageContaining("does not end at type " + t);
              }
            }
          }
        }
      }
    }
    assertThat(want.partitionStarts(0)).containsExactly(0, want.vertices(0).numVertices());
  }

  private static List<Integer> row(CsrGraph g, int v) {
    List<Integer> out = new ArrayList<>();
    for (long e = g.rowStart(v); e < g.rowEnd(v); e++) {
      out.add(g.neighbor(e));
    }
    return out;
  }
}
