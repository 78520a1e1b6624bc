package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.GraphStore;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.spark.PrepareAction;
import io.fanout.spark.PrepareResult;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A typed graph of three types and four relations (a featureless type, a multi-label type, a
 * declared reverse pair) prepared with {@code --add-reverse}, {@code --dedupe}, {@code --self-loops
 * drop}, a per-type encoding and two partitions per type, read back through {@link TypedGraphStore}
 * and compared with an {@link ArrayTypedGraph} built from the input rows and the store's id maps.
 */
class TypedPrepareTest {
  static SparkSession spark;
  static final TypedGraphFixture G = new TypedGraphFixture(7);
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedPrepareTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  PrepareAction typed(Path out) {
    return G.prepare(spark)
        .option("dedupe", "true")
        .option("self-loops", "drop")
        .option("feature-encoding", "author=f16")
        .option("partitions", "2")
        .output(out.toString());
  }

  @Tag("slow")
  @Test
  void typedStoreReadsBackAsTheReferenceGraph() throws java.io.IOException {
    Path out = tmp.resolve("store");
    PrepareResult r = typed(out).execute();
    StoreManifest m = r.manifest();
    assertThat(m.typed()).isTrue();
    assertThat(m.types).extracting(t -> t.name).containsExactly("paper", "author", "term");
    assertThat(m.relations)
        .extracting(x -> x.name)
        .containsExactly("cites", "writes", "written_by", "has_term", "rev_cites", "rev_has_term");
    assertThat(m.relations)
        .extracting(x -> x.reverseOf)
        .containsExactly("rev_cites", "written_by", "writes", "rev_has_term", "cites", "has_term");
    assertThat(m.relations)
        .extracting(x -> x.addedReverse)
        .containsExactly(false, false, false, false, true, true);
    assertThat(m.types).extracting(t -> t.featureEncoding).containsExactly("f32", "f16", "");
    assertThat(m.partitions).isEqualTo(6);

    try (TypedGraphStore g = TypedGraphStore.open(out, true)) {
      assertThat(g.verifyChecksums()).isEqualTo(m.files.size());
      Reference ref = new Reference(g);
      TypedGraph want = ref.graph;
      TypedSchema s = g.schema();
      for (int t = 0; t < s.numTypes(); t++) {
        TypedSchema.VertexType got = s.type(t);
        TypedSchema.VertexType exp = want.schema().type(t);
        assertThat(got.name()).isEqualTo(exp.name());
        assertThat(got.count()).isEqualTo(exp.count());
        assertThat(got.firstVertex()).isEqualTo(exp.firstVertex());
        assertThat(got.featureDim()).isEqualTo(exp.featureDim());
        for (int v = 0; v < got.count(); v++) {
          assertThat(g.vertices(t).label(v))
              .as("%s %d label", got.name(), v)
              .isEqualTo(want.vertices(t).label(v));
          assertThat(g.vertices(t).split(v)).isEqualTo(want.vertices(t).split(v));
        }
        assertFeatures(got.name(), g.features(t), want.features(t), got.count());
      }
      assertThat(s.type(0).classes()).isEqualTo(ref.paperClasses);
      assertThat(s.type(1).multiLabel()).isTrue();
      assertThat(s.type(1).classes()).isEqualTo(ref.authorClasses);
      for (int v = 0; v < G.AUTHORS; v++) {
        assertThat(g.labelSet(1, v)).as("author %d", v).containsExactly(ref.labelSets[v]);
      }
      assertThat(s.numRelations()).isEqualTo(want.schema().numRelations());
      for (int r2 = 0; r2 < s.numRelations(); r2++) {
        assertThat(s.relation(r2)).isEqualTo(want.schema().relation(r2));
        assertCsr(s.relation(r2).name(), g.inNeighbors(r2), want.inNeighbors(r2));
      }
    }
    assertThatThrownBy(() -> GraphStore.open(out))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("a typed graph store (3 vertex types, 6 relations)");

    // a damaged relation file is refused by the checksums; a truncated one by its length
    Path csr =
        m.dataRoot(out).resolve(StoreLayout.relationDir("writes")).resolve(StoreLayout.csrFile(1));
    byte[] bytes = java.nio.file.Files.readAllBytes(csr);
    bytes[bytes.length - 1] ^= 1;
    java.nio.file.Files.write(csr, bytes);
    assertThatThrownBy(() -> TypedGraphStore.open(out, true))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(csr.toString())
        .hasMessageContaining("damaged");
    java.nio.file.Files.write(csr, java.util.Arrays.copyOf(bytes, bytes.length - 4));
    assertThatThrownBy(() -> TypedGraphStore.open(out, false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(csr.toString())
        .hasMessageContaining("truncated");
  }

  static void assertFeatures(String type, FeatureTable got, FeatureTable want, long n) {
    if (want == null) {
      assertThat(got).as(type).isNull();
      return;
    }
    int dim = want.dim();
    int[] ids = new int[(int) n];
    for (int i = 0; i < n; i++) {
      ids[i] = i;
    }
    float[] a = new float[(int) n * dim];
    float[] b = new float[(int) n * dim];
    got.gather(ids, 0, (int) n, a, 0);
    want.gather(ids, 0, (int) n, b, 0);
    for (int i = 0; i < a.length; i++) {
      assertThat(a[i])
          .as("%s feature %d", type, i)
          .isCloseTo(b[i], org.assertj.core.data.Offset.offset(4e-3f));
    }
  }

  static void assertCsr(String name, CsrGraph got, CsrGraph want) {
    assertThat(got.numVertices()).as(name).isEqualTo(want.numVertices());
    assertThat(got.numEdges()).as(name).isEqualTo(want.numEdges());
    for (int v = 0; v < want.numVertices(); v++) {
      assertThat(row(got, v)).as("%s row %d", name, v).isEqualTo(row(want, v));
    }
  }

  static List<Integer> row(CsrGraph g, int v) {
    List<Integer> out = new ArrayList<>();
    for (long p = g.rowStart(v); p < g.rowEnd(v); p++) {
      out.add(g.neighbor(p));
    }
    return out;
  }

  /** The expected graph: the fixture's rows under the dense ids the store's id maps give. */
  static final class Reference {
    final ArrayTypedGraph graph;
    final int[][] labelSets = new int[TypedGraphFixture.AUTHORS][];
    int paperClasses;
    int authorClasses;

    Reference(TypedGraphStore g) {
      Map<Object, Integer> paper = dense(g, 0);
      Map<Object, Integer> author = dense(g, 1);
      Map<Object, Integer> term = dense(g, 2);
      int np = paper.size();
      int na = author.size();
      float[] pf = new float[np * 3];
      int[] pl = new int[np];
      byte[] ps = new byte[np];
      for (Row r : G.papers) {
        int d = paper.get(r.get(0));
        @SuppressWarnings("unchecked")
        List<Float> f = (List<Float>) r.get(1);
        for (int j = 0; j < 3; j++) {
          pf[d * 3 + j] = f.get(j);
        }
        pl[d] = r.getInt(2);
        ps[d] = (byte) StoreLayout.splitCode(r.getString(3));
        paperClasses = Math.max(paperClasses, pl[d] + 1);
      }
      float[] af = new float[na * 2];
      int[] al = new int[na];
      for (Row r : G.authors) {
        int d = author.get(r.get(0));
        @SuppressWarnings("unchecked")
        List<Float> f = (List<Float>) r.get(1);
        af[d * 2] = f.get(0);
        af[d * 2 + 1] = f.get(1);
        TreeSet<Integer> set = new TreeSet<>();
        if (!r.isNullAt(2)) {
          @SuppressWarnings("unchecked")
          List<Integer> given = (List<Integer>) r.get(2);
          set.addAll(given);
        }
        labelSets[d] = set.stream().mapToInt(Integer::intValue).toArray();
        al[d] = set.isEmpty() ? -1 : set.first();
        authorClasses = set.isEmpty() ? authorClasses : Math.max(authorClasses, set.last() + 1);
      }
      int[][] cites = edges(G.cites, paper, paper, true);
      int[][] writes = edges(G.writes, author, paper, false);
      int[][] writtenBy = edges(G.writtenBy, paper, author, false);
      int[][] hasTerm = edges(G.hasTerm, paper, term, false);
      graph =
          ArrayTypedGraph.builder()
              .type("paper", np, 3, pf, pl, ps)
              .type("author", na, 2, af, al, null)
              .type("term", term.size(), 0, null, null, null)
              .relation("cites", "paper", "paper", cites[0], cites[1])
              .relation("writes", "author", "paper", writes[0], writes[1])
              .relation("written_by", "paper", "author", writtenBy[0], writtenBy[1])
              .relation("has_term", "paper", "term", hasTerm[0], hasTerm[1])
              .relation("rev_cites", "paper", "paper", cites[1], cites[0])
              .relation("rev_has_term", "term", "paper", hasTerm[1], hasTerm[0])
              .build();
    }

    /** Distinct edges in dense ids (--dedupe), self-loops dropped where asked. */
    static int[][] edges(
        List<Row> rows, Map<Object, Integer> src, Map<Object, Integer> dst, boolean dropLoops) {
      Set<List<Integer>> pairs = new LinkedHashSet<>();
      for (Row r : rows) {
        int s = src.get(r.get(0));
        int d = dst.get(r.get(1));
        if (!(dropLoops && s == d)) {
          pairs.add(List.of(s, d));
        }
      }
      int[][] out = new int[2][pairs.size()];
      int i = 0;
      for (List<Integer> p : pairs) {
        out[0][i] = p.get(0);
        out[1][i++] = p.get(1);
      }
      return out;
    }

    /** Original id to type-local dense id, from the type's id map. */
    static Map<Object, Integer> dense(TypedGraphStore g, int type) {
      Map<Object, Integer> out = new HashMap<>();
      for (Row r : spark.read().parquet(g.idMap(type).toString()).collectAsList()) {
        out.put(r.get(r.fieldIndex("id")), r.getInt(r.fieldIndex("dense_id")));
      }
      assertThat(out).hasSize((int) g.schema().type(type).count());
      return out;
    }
  }
}
