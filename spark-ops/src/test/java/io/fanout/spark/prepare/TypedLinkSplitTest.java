package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.HeldOutCount;
import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code prepare --task link --link-relation writes} on the typed fixture: the held-out edges of
 * {@code writes} (author to paper) leave it and its declared reverse {@code written_by}; the
 * training edges stay; negatives pair a held-out edge's author with papers that are not its
 * neighbors; the rest of the store is untouched and the split is a function of the seed.
 */
class TypedLinkSplitTest {
  static SparkSession spark;
  static final TypedGraphFixture G = new TypedGraphFixture(7);
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedLinkSplitTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  PrepareAction typed(Path out) {
    return typed(out, G.writes(spark));
  }

  PrepareAction typed(Path out, Dataset<Row> writes) {
    return G.prepare(spark, writes).option("partitions", "2").output(out.toString());
  }

  @Tag("slow")
  @Test
  void heldOutEdgesLeaveTheRelationAndItsReverse() throws Exception {
    Path out = tmp.resolve("store");
    StoreManifest m =
        typed(out)
            .option("task", "link")
            .option("link-relation", "writes")
            .option("edge-split", "0.5,0.25,0.25")
            .option("edge-split-negatives", "2")
            .option("edge-split-seed", "5")
            .execute()
            .manifest();
    assertThat(m.edgeSplit.relation).isEqualTo("writes");
    assertThat(m.edgeSplit.removedFrom).containsExactly("writes", "written_by");
    assertThat(m.files)
        .extracting(f -> f.path)
        .contains(
            StoreLayout.relationEdgeSplitFile("writes", "val"),
            StoreLayout.relationEdgeSplitFile("writes", "test"));
    try (TypedGraphStore g = TypedGraphStore.open(out, true)) {
      TypedSchema s = g.schema();
      Map<Object, Integer> author = dense(g, 1);
      Map<Object, Integer> paper = dense(g, 0);
      Set<Long> all = new HashSet<>();
      for (Row r : G.writes) {
        all.add(pair(author.get(r.get(0)), paper.get(r.get(1))));
      }
      Set<Long> kept = edges(g.inNeighbors(s.relationIndex("writes")), false);
      Set<Long> keptReverse = edges(g.inNeighbors(s.relationIndex("written_by")), true);
      assertThat(keptReverse).isEqualTo(kept);
      Set<Long> heldOut = new HashSet<>();
      for (String split : StoreLayout.HELD_OUT_SPLITS) {
        HeldOutEdges h = HeldOutEdges.read(g, split);
        Set<Long> positives = new HashSet<>();
        for (int i = 0; i < h.size(); i++) {
          long p = pair(h.src[i], h.dst[i]);
          if (h.label[i] == 1) {
            assertThat(all).contains(p);
            assertThat(kept).doesNotContain(p);
            assertThat(heldOut.add(p)).as("%s held out twice", p).isTrue();
            positives.add((long) h.src[i]);
          } else {
            assertThat(h.src[i]).isBetween(0, (int) s.type(1).count() - 1);
            assertThat(h.dst[i]).isBetween(0, (int) s.type(0).count() - 1);
            assertThat(all).as("negative %s is an edge", p).doesNotContain(p);
            assertThat(positives).contains((long) h.src[i]);
          }
        }
        assertThat(h.positives()).isPositive();
        assertThat(h.size() - h.positives()).isPositive().isLessThanOrEqualTo(2 * h.positives());
        // counted without reading the pairs, as sample's driver counts them
        assertThat(HeldOutEdges.count(g, split))
            .isEqualTo(g.heldOutCount(split))
            .isEqualTo(new HeldOutCount(h.size(), h.positives()));
        assertThat(split.equals("val") ? m.edgeSplit.valPairs : m.edgeSplit.testPairs)
            .isEqualTo(h.positives());
      }
      Set<Long> union = new HashSet<>(kept);
      union.addAll(heldOut);
      assertThat(union).isEqualTo(all);
      assertThat(m.edgeSplit.trainPairs).isEqualTo(kept.size());
      assertThat(m.edgeSplit.valPairs + m.edgeSplit.testPairs).isEqualTo(heldOut.size());
      // the other relations keep every edge
      assertThat(m.relations.get(s.relationIndex("has_term")).edges)
          .isEqualTo((long) G.hasTerm.size());
    }
    // which edges are held out depends on the pairs and the seed, not on the partitioning
    Path again = tmp.resolve("again");
    StoreManifest m2 =
        typed(again)
            .option("task", "link")
            .option("link-relation", "writes")
            .option("edge-split", "0.5,0.25,0.25")
            .option("edge-split-negatives", "2")
            .option("edge-split-seed", "5")
            .option("partitions", "3")
            .execute()
            .manifest();
    for (String split : StoreLayout.HELD_OUT_SPLITS) {
      assertThat(positives(heldOutFile(again, m2, split)))
          .isEqualTo(positives(heldOutFile(out, m, split)));
    }
  }

  /**
   * The fixture's {@code writes} with a {@code split} column: {@code splits.get(i)} for its row
   * {@code i}.
   */
  private static Dataset<Row> writesWithSplits(List<String> splits) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < G.writes.size(); i++) {
      Row r = G.writes.get(i);
      rows.add(RowFactory.create(r.get(0), r.get(1), splits.get(i)));
    }
    return spark.createDataFrame(
        rows, TypedGraphFixture.AUTHOR_PAPER.add("split", DataTypes.StringType));
  }

  /** A split per row of the fixture's {@code writes}, from a seeded draw: val, test or train. */
  private static List<String> drawnSplits() {
    java.util.Random rnd = new java.util.Random(11);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < G.writes.size(); i++) {
      int k = rnd.nextInt(5);
      // case and blanks are ignored, as for the one-table column
      out.add(k == 0 ? " Val" : k == 1 ? "TEST" : "train");
    }
    return out;
  }

  @Tag("slow")
  @Test
  void aSplitColumnHoldsOutExactlyTheMarkedEdges() throws Exception {
    Path out = tmp.resolve("column");
    List<String> splits = drawnSplits();
    StoreManifest m =
        typed(out, writesWithSplits(splits))
            .option("link-relation", "writes")
            .option("edge-split-column", "split")
            .option("edge-split-negatives", "2")
            .execute()
            .manifest();
    assertThat(m.edgeSplit.column).isEqualTo("split");
    assertThat(m.edgeSplit.fractions).isNull();
    assertThat(m.edgeSplit.removedFrom).containsExactly("writes", "written_by");
    Map<String, Set<String>> marked = new java.util.HashMap<>();
    for (String split : List.of("train", "val", "test")) {
      marked.put(split, new HashSet<>());
    }
    for (int i = 0; i < G.writes.size(); i++) {
      Row r = G.writes.get(i);
      marked
          .get(splits.get(i).trim().toLowerCase(java.util.Locale.ROOT))
          .add(r.get(0) + " " + r.get(1));
    }
    try (TypedGraphStore g = TypedGraphStore.open(out, true)) {
      TypedSchema s = g.schema();
      Map<Object, Integer> author = dense(g, 1);
      Map<Object, Integer> paper = dense(g, 0);
      Set<Long> train = new HashSet<>();
      for (String p : marked.get("train")) {
        String[] ap = p.split(" ");
        train.add(pair(author.get(ap[0]), paper.get(Long.parseLong(ap[1]))));
      }
      assertThat(edges(g.inNeighbors(s.relationIndex("writes")), false)).isEqualTo(train);
      assertThat(edges(g.inNeighbors(s.relationIndex("written_by")), true)).isEqualTo(train);
      Set<Long> all = new HashSet<>();
      for (Row r : G.writes) {
        all.add(pair(author.get(r.get(0)), paper.get(r.get(1))));
      }
      for (String split : StoreLayout.HELD_OUT_SPLITS) {
        assertThat(marked.get(split)).isNotEmpty();
        assertThat(positives(heldOutFile(out, m, split))).isEqualTo(marked.get(split));
        HeldOutEdges h = HeldOutEdges.read(g, split);
        assertThat(h.size() - h.positives()).isPositive().isLessThanOrEqualTo(2 * h.positives());
        for (int i = 0; i < h.size(); i++) {
          if (h.label[i] == 0) {
            assertThat(all).doesNotContain(pair(h.src[i], h.dst[i]));
          }
        }
      }
      assertThat(m.edgeSplit.trainPairs).isEqualTo(train.size());
    }
  }

  /**
   * {@code cites} (paper to paper, repeats and a self-loop) with its {@code rev_cites} added by
   * {@code --add-reverse}: the split is a function of the pair, so repeats agree; the self-loop is
   * marked val but stays in training.
   */
  @Tag("slow")
  @Test
  void aSplitColumnOnARelationWithAnAddedReverse() throws Exception {
    Map<String, Set<String>> marked = new java.util.HashMap<>();
    for (String split : List.of("train", "val", "test")) {
      marked.put(split, new HashSet<>());
    }
    List<Row> rows = new ArrayList<>();
    for (Row r : G.cites) {
      String p = r.get(0) + " " + r.get(1);
      int k = Math.floorMod(p.hashCode(), 4);
      String split = r.get(0).equals(r.get(1)) ? "val" : k == 0 ? "val" : k == 1 ? "test" : "train";
      rows.add(RowFactory.create(r.get(0), r.get(1), split));
      marked.get(r.get(0).equals(r.get(1)) ? "train" : split).add(p);
    }
    Dataset<Row> cites =
        spark.createDataFrame(
            rows, TypedGraphFixture.LONG_EDGES.add("split", DataTypes.StringType));
    Path out = tmp.resolve("cites");
    StoreManifest m =
        Fanout.get(spark)
            .prepare()
            .vertices("paper", G.papers(spark))
            .vertices("author", G.authors(spark))
            .edges("cites", "paper", "paper", cites)
            .edges("writes", "author", "paper", G.writes(spark))
            .option("add-reverse", "true")
            .option("link-relation", "cites")
            .option("edge-split-column", "split")
            .output(out.toString())
            .execute()
            .manifest();
    assertThat(m.edgeSplit.removedFrom).containsExactly("cites", "rev_cites");
    assertThat(m.options).containsEntry("edge-split-column", "split");
    try (TypedGraphStore g = TypedGraphStore.open(out, true)) {
      TypedSchema s = g.schema();
      Map<Object, Integer> paper = dense(g, 0);
      Set<Long> train = new HashSet<>();
      for (String p : marked.get("train")) {
        String[] ab = p.split(" ");
        train.add(pair(paper.get(Long.parseLong(ab[0])), paper.get(Long.parseLong(ab[1]))));
      }
      assertThat(edges(g.inNeighbors(s.relationIndex("cites")), false)).isEqualTo(train);
      assertThat(edges(g.inNeighbors(s.relationIndex("rev_cites")), true)).isEqualTo(train);
      for (String split : StoreLayout.HELD_OUT_SPLITS) {
        assertThat(marked.get(split)).isNotEmpty();
        assertThat(
                positives(
                    m.dataRoot(out).resolve(StoreLayout.relationEdgeSplitFile("cites", split))))
            .isEqualTo(marked.get(split));
      }
    }
  }

  @Test
  void aBadSplitValueNamesTheRelationTheColumnAndTheRow() {
    List<String> splits = new ArrayList<>(java.util.Collections.nCopies(G.writes.size(), "train"));
    splits.set(3, "holdout");
    assertThatThrownBy(
            () ->
                typed(tmp.resolve("bad"), writesWithSplits(splits))
                    .option("link-relation", "writes")
                    .option("edge-split-column", "split")
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("relation 'writes'")
        .hasMessageContaining("column 'split'")
        .hasMessageContaining("a split other than train, val, test")
        .hasMessageContaining("\"split\":\"holdout\"")
        .hasMessageContaining("\"src\":\"" + G.writes.get(3).get(0) + "\"");
    splits.set(3, null);
    assertThatThrownBy(
            () ->
                typed(tmp.resolve("null"), writesWithSplits(splits))
                    .option("link-relation", "writes")
                    .option("edge-split-column", "split")
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("relation 'writes'")
        .hasMessageContaining("a null split");
    assertThatThrownBy(
            () ->
                typed(tmp.resolve("missing"))
                    .option("link-relation", "writes")
                    .option("edge-split-column", "split")
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("relation 'writes'")
        .hasMessageContaining("missing column 'split' (--edge-split-column)");
    assertThatThrownBy(
            () -> typed(tmp.resolve("norel")).option("edge-split-column", "split").execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("--link-relation");
  }

  @Test
  void linkWithoutARelationOrWithAnUnknownOneIsRefused() {
    assertThatThrownBy(() -> typed(tmp.resolve("a")).option("task", "link").execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("--link-relation");
    assertThatThrownBy(
            () ->
                typed(tmp.resolve("b"))
                    .option("task", "link")
                    .option("link-relation", "nope")
                    .execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("'nope', not a relation of the graph")
        .hasMessageContaining("rev_cites");
  }

  /** Original id to type-local dense id, from the type's id map. */
  private static Map<Object, Integer> dense(TypedGraphStore g, int type) {
    Map<Object, Integer> out = new java.util.HashMap<>();
    for (Row r : spark.read().parquet(g.idMap(type).toString()).collectAsList()) {
      out.put(r.get(r.fieldIndex("id")), r.getInt(r.fieldIndex("dense_id")));
    }
    return out;
  }

  /** The positives of a held-out edge list as "src dst" original ids. */
  private static Set<String> positives(Path file) {
    Set<String> out = new HashSet<>();
    for (Row r : spark.read().parquet(file.toString()).where("label = 1").collectAsList()) {
      out.add(r.get(r.fieldIndex("src")) + " " + r.get(r.fieldIndex("dst")));
    }
    return out;
  }

  private static Path heldOutFile(Path store, StoreManifest m, String split) {
    return m.dataRoot(store).resolve(StoreLayout.relationEdgeSplitFile("writes", split));
  }

  private static long pair(int src, int dst) {
    return ((long) src << 32) | dst;
  }

  /** The edges of a CSR as (src, dst) pairs; {@code flip}: as (dst, src). */
  private static Set<Long> edges(CsrGraph g, boolean flip) {
    Set<Long> out = new HashSet<>();
    for (int v = 0; v < g.numVertices(); v++) {
      for (long p = g.rowStart(v); p < g.rowEnd(v); p++) {
        int u = g.neighbor(p);
        out.add(flip ? pair(v, u) : pair(u, v));
      }
    }
    return out;
  }
}
