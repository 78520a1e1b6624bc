package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TypedGraphStore} reads back a typed store written by {@link TypedStoreFixtures} as the
 * {@link ArrayTypedGraph} it was written from, over tiny mapping chunks; the manifest's typed
 * sections are checked; one-table readers and typed readers refuse each other's stores.
 */
class TypedGraphStoreTest {
  @TempDir Path tmp;

  /** Types a (features, labels), b (label sets, no features), c; relations between them. */
  static ArrayTypedGraph graph(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int na = 7;
    int nb = 5;
    int nc = 3;
    float[] fa = new float[na * 3];
    for (int i = 0; i < fa.length; i++) {
      fa[i] = (float) rnd.nextGaussian();
    }
    int[] la = new int[na];
    byte[] sa = new byte[na];
    for (int v = 0; v < na; v++) {
      la[v] = rnd.nextInt(4) - 1;
      sa[v] = (byte) rnd.nextInt(4);
    }
    ArrayTypedGraph.Builder b =
        ArrayTypedGraph.builder()
            .type("a", na, 3, fa, la, sa)
            .type("b", nb, 0, null, null, null)
            .type("c", nc, 0, null, null, null);
    String[][] rels = {{"aa", "a", "a"}, {"ab", "a", "b"}, {"ba", "b", "a"}, {"cb", "c", "b"}};
    int[] counts = {na, nb, nc};
    for (String[] r : rels) {
      int ns = counts[r[1].charAt(0) - 'a'];
      int nd = counts[r[2].charAt(0) - 'a'];
      int e = rnd.nextInt(12);
      int[] src = new int[e];
      int[] dst = new int[e];
      for (int i = 0; i < e; i++) {
        src[i] = rnd.nextInt(ns);
        dst[i] = rnd.nextInt(nd);
      }
      b.relation(r[0], r[1], r[2], src, dst);
    }
    return b.build();
  }

  static final int[][] SIZES = {{3, 0, 4}, {5}, {1, 2}};
  static final int[][][] SETS = {null, {{0, 2}, {}, {1}, {0, 1, 3}, {}}, null};

  @Test
  void readsBackTheGraphItWasWrittenFrom() {
    ArrayTypedGraph want = graph(3);
    Path store = tmp.resolve("store");
    StoreManifest m = TypedStoreFixtures.write(store, want, SIZES, SETS);
    try (TypedGraphStore g = TypedGraphStore.open(store, 3)) {
      TypedSchema s = g.schema();
      assertThat(s.numTypes()).isEqualTo(3);
      assertThat(s.type(1).multiLabel()).isTrue();
      assertThat(s.type(1).classes()).isEqualTo(4);
      assertThat(s.type(0).featureEncoding()).isEqualTo("f32");
      assertThat(s.type(2).featureEncoding()).isEmpty();
      assertThat(s.typeOf(8)).isEqualTo(1);
      for (int t = 0; t < 3; t++) {
        int n = (int) s.type(t).count();
        assertThat(g.vertices(t).numVertices()).isEqualTo(n);
        for (int v = 0; v < n; v++) {
          assertThat(g.vertices(t).label(v)).isEqualTo(want.vertices(t).label(v));
          assertThat(g.vertices(t).split(v)).isEqualTo(want.vertices(t).split(v));
        }
      }
      float[] got = new float[7 * 3];
      float[] exp = new float[7 * 3];
      int[] ids = {6, 0, 3, 2, 5, 1, 4};
      g.features(0).gather(ids, 0, 7, got, 0);
      want.features(0).gather(ids, 0, 7, exp, 0);
      assertThat(got).containsExactly(exp);
      assertThat(g.features(1)).isNull();
      for (int v = 0; v < 5; v++) {
        assertThat(g.labelSet(1, v)).containsExactly(SETS[1][v]);
      }
      assertThatThrownBy(() -> g.labelSet(0, 0))
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("'a' is not multi-label");
      for (int r = 0; r < s.numRelations(); r++) {
        assertThat(s.relation(r)).isEqualTo(want.schema().relation(r));
        CsrGraph a = g.inNeighbors(r);
        CsrGraph b = want.inNeighbors(r);
        assertThat(a.numVertices()).isEqualTo(b.numVertices());
        assertThat(a.numEdges()).isEqualTo(b.numEdges());
        for (int v = 0; v < b.numVertices(); v++) {
          assertThat(a.degree(v)).isEqualTo(b.degree(v));
          for (long i = 0; i < b.degree(v); i++) {
            assertThat(a.neighbor(a.rowStart(v) + i)).isEqualTo(b.neighbor(b.rowStart(v) + i));
          }
        }
      }
      assertThat(g.idMap(2)).isEqualTo(g.dataRoot().resolve("types/c/idmap"));
    }
    try (TypedGraphStore g = TypedGraphStore.open(store, true)) {
      assertThat(g.verifyChecksums()).isEqualTo(m.files.size());
    }
  }

  @Test
  void oneTableAndTypedReadersRefuseEachOthersStores() {
    Path typed = tmp.resolve("typed");
    TypedStoreFixtures.write(typed, graph(5), SIZES, SETS);
    assertThatThrownBy(() -> GraphStore.open(typed))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("a typed graph store (3 vertex types, 4 relations)");
    assertThatThrownBy(() -> GraphStore.open(typed, true))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("typed graph store");
    Path plain = tmp.resolve("plain");
    StoreFixtures.write(plain, StoreFixtures.random(1, 10, 3, 2), new int[] {10});
    assertThatThrownBy(() -> TypedGraphStore.open(plain, false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("a one-table graph store");
    assertThat(TypedGraphStore.isTyped(typed)).isTrue();
    assertThat(TypedGraphStore.isTyped(plain)).isFalse();
  }

  @Test
  void aOneTableManifestHasNoTypedKeys() {
    String json = new StoreManifest().toJson();
    assertThat(json).doesNotContain("\"types\"").doesNotContain("\"relations\"");
    assertThat(json).contains("\"format\" : \"fanout-graph-store\"");
  }

  @Test
  void inconsistentTypedManifestsAreRefused() throws Exception {
    Path store = tmp.resolve("store");
    TypedStoreFixtures.write(store, graph(9), SIZES, SETS);
    Path file = store.resolve(StoreLayout.MANIFEST);
    String json = Files.readString(file);
    String[][] edits = {
      {"\"partitions\" : 3,", "\"partitions\" : 2,", "has 7 vertices, its partitions"},
      {"\"dst_type\" : \"a\"", "\"dst_type\" : \"z\"", "names an unknown type"},
      {"\"name\" : \"ab\"", "\"name\" : \"aa\"", "relation name 'aa' is repeated"},
      {"\"first_partition\" : 3,", "\"first_partition\" : 2,", "does not start where the previous"},
    };
    for (String[] e : edits) {
      assertThat(json).contains(e[0]);
      String bad = json.replaceFirst(java.util.regex.Pattern.quote(e[0]), e[1]);
      assertThatThrownBy(() -> StoreManifest.fromJson("m.json", bad))
          .as(e[0])
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith("m.json: ")
          .hasMessageContaining(e[2]);
    }
  }
}
