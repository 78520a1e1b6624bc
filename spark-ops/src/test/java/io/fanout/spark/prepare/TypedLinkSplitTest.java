package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
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
    return Fanout.get(spark)
        .prepare()
        .vertices("paper", G.papers(spark))
        .vertices("author", G.authors(spark))
        .vertices("term", G.terms(spark))
        .edges("cites", "paper", "paper", G.cites(spark))
        .edges("writes", "author", "paper", G.writes(spark))
        .edges("written_by", "paper", "author", G.writtenBy(spark))
        .reverseOf("written_by", "writes")
        .edges("has_term", "paper", "term", G.hasTerm(spark))
        .option("labels-column", "labels")
        .option("add-reverse", "true")
        .option("partitions", "2")
        .output(out.toString());
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
