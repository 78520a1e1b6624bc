package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
 * {@code prepare --undirected} on typed graphs: a relation within one type ({@code cites}) holds
 * every edge both ways round (self-loops once, {@code --dedupe} and {@code --self-loops} as for a
 * one-table graph, weights carried to the reverse), one between two types without a reverse ({@code
 * writes}) gets {@code rev_writes} as {@code --add-reverse} adds it, one with a declared reverse
 * ({@code has_term}, {@code term_of}) gets none; checked against adjacency built from the input
 * rows and the store's id maps; the same files through either id lookup and over other input and
 * shuffle task counts, and a symmetric relation's csr files are the one-table {@code --undirected}
 * store's. A held-out edge of a symmetric {@code --link-relation} is in neither direction of the
 * training CSR; the dry run counts the doubled edges.
 */
class TypedPrepareUndirectedTest {
  static SparkSession spark;
  static final TypedGraphFixture G = new TypedGraphFixture(23);
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedPrepareUndirectedTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  Dataset<Row> termOf() {
    return G.hasTerm(spark).select(col("dst").as("src"), col("src").as("dst"));
  }

  PrepareAction typed(String name, Dataset<Row> cites) {
    return Fanout.get(spark)
        .prepare()
        .vertices("paper", G.papers(spark))
        .vertices("author", G.authors(spark))
        .vertices("term", G.terms(spark))
        .edges("cites", "paper", "paper", cites)
        .edges("writes", "author", "paper", G.writes(spark))
        .edges("has_term", "paper", "term", G.hasTerm(spark))
        .edges("term_of", "term", "paper", termOf())
        .reverseOf("term_of", "has_term")
        .option("labels-column", "labels")
        .option("undirected", "true")
        .option("partitions", "2")
        .output(tmp.resolve(name).toString());
  }

  /** Papers and terms, {@code cites} and {@code has_term}: the smaller graph of the other tests. */
  PrepareAction small(String name, Dataset<Row> cites) {
    return Fanout.get(spark)
        .prepare()
        .vertices("paper", G.papers(spark))
        .vertices("term", G.terms(spark))
        .edges("cites", "paper", "paper", cites)
        .edges("has_term", "paper", "term", G.hasTerm(spark))
        .option("undirected", "true")
        .output(tmp.resolve(name).toString());
  }

  @Tag("slow")
  @Test
  void relationsWithinATypeAreSymmetricAndOthersGetTheirReverse() throws Exception {
    StoreManifest m = typed("task", G.cites(spark)).option("dedupe", "true").execute().manifest();
    assertThat(m.relations)
        .extracting(r -> r.name)
        .containsExactly("cites", "writes", "has_term", "term_of", "rev_writes");
    assertThat(m.relations)
        .extracting(r -> r.addedReverse)
        .containsExactly(false, false, false, false, true);
    assertThat(m.relations.get(0).reverseOf).isNull();
    assertThat(m.options).containsEntry("undirected", "true");
    try (TypedGraphStore g = TypedGraphStore.open(tmp.resolve("task"), true)) {
      TypedSchema s = g.schema();
      Map<Object, Integer> paper = dense(g, 0);
      Map<Object, Integer> author = dense(g, 1);
      Map<Object, Integer> term = dense(g, 2);
      assertRows("cites", g, "cites", reference(G.cites, paper, paper, true, true, false));
      assertRows("writes", g, "writes", reference(G.writes, author, paper, false, true, false));
      assertRows(
          "rev_writes", g, "rev_writes", reference(G.writes, author, paper, false, true, true));
      assertRows("has_term", g, "has_term", reference(G.hasTerm, paper, term, false, true, false));
      assertRows("term_of", g, "term_of", reference(G.hasTerm, paper, term, false, true, true));
      assertThat(s.relation(s.relationIndex("cites")).srcType()).isZero();
    }
    // the csr tasks' lookup (task, the default here) and Spark's join write the same bytes, over
    // other input and shuffle task counts
    String shuffle = spark.conf().get("spark.sql.shuffle.partitions");
    spark.conf().set("spark.sql.shuffle.partitions", "3");
    try {
      typed("sql", G.cites(spark).repartition(3))
          .option("dedupe", "true")
          .option("id-lookup", "sql")
          .execute();
    } finally {
      spark.conf().set("spark.sql.shuffle.partitions", shuffle);
    }
    // every file (the manifests differ only in the input's fingerprint: another plan)
    StoreManifest task = StoreManifest.read(tmp.resolve("task"));
    StoreManifest sql = StoreManifest.read(tmp.resolve("sql"));
    assertThat(sql.files)
        .extracting(f -> f.path)
        .isEqualTo(task.files.stream().map(f -> f.path).toList());
    for (StoreManifest.FileEntry f : task.files) {
      assertThat(Files.readAllBytes(sql.dataRoot(tmp.resolve("sql")).resolve(f.path)))
          .as(f.path)
          .isEqualTo(Files.readAllBytes(task.dataRoot(tmp.resolve("task")).resolve(f.path)));
    }
    assertThat(sql.relations)
        .extracting(r -> r.edges)
        .isEqualTo(task.relations.stream().map(r -> r.edges).toList());
  }

  @Test
  void aSymmetricRelationHasTheCsrFilesOfTheOneTableUndirectedStore() throws Exception {
    // a second type, without relations, takes the graph through the typed pipeline
    Fanout.get(spark)
        .prepare()
        .vertices("paper", G.papers(spark))
        .vertices("term", G.terms(spark))
        .edges("cites", "paper", "paper", G.cites(spark))
        .option("undirected", "true")
        .option("dedupe", "true")
        .option("partitions", "2")
        .output(tmp.resolve("typed").toString())
        .execute();
    Fanout.get(spark)
        .prepare(G.papers(spark), G.cites(spark))
        .option("undirected", "true")
        .option("dedupe", "true")
        .option("partitions", "2")
        .output(tmp.resolve("plain").toString())
        .execute();
    Path typed = tmp.resolve("typed");
    Path plain = tmp.resolve("plain");
    StoreManifest mt = StoreManifest.read(typed);
    StoreManifest mp = StoreManifest.read(plain);
    assertThat(mt.relations.get(0).edges).isEqualTo(mp.edges);
    for (int p = 0; p < 2; p++) {
      String file = StoreLayout.csrFile(p);
      assertThat(
              Files.readAllBytes(
                  mt.dataRoot(typed).resolve(StoreLayout.relationDir("cites")).resolve(file)))
          .as(file)
          .isEqualTo(Files.readAllBytes(mp.dataRoot(plain).resolve(file)));
    }
  }

  @Test
  void weightsFollowBothDirectionsAndDedupeSumsThem() throws Exception {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < G.cites.size(); i++) {
      Row r = G.cites.get(i);
      rows.add(RowFactory.create(r.get(0), r.get(1), 0.25 * (i % 7) + 0.5));
    }
    Dataset<Row> cites =
        spark.createDataFrame(
            rows, TypedGraphFixture.LONG_EDGES.add("w", DataTypes.DoubleType, false));
    Path out = tmp.resolve("weighted");
    small("weighted", cites)
        .option("weight-column", "w")
        .option("dedupe", "true")
        .option("self-loops", "drop")
        .execute();
    try (TypedGraphStore g = TypedGraphStore.open(out, true)) {
      Map<Object, Integer> paper = dense(g, 0);
      // destination -> source -> summed weight, both directions of every non-loop edge
      Map<Integer, TreeMap<Integer, Double>> want = new HashMap<>();
      for (Row r : rows) {
        int s = paper.get(r.get(0));
        int d = paper.get(r.get(1));
        if (s == d) {
          continue;
        }
        want.computeIfAbsent(d, k -> new TreeMap<>()).merge(s, r.getDouble(2), Double::sum);
        want.computeIfAbsent(s, k -> new TreeMap<>()).merge(d, r.getDouble(2), Double::sum);
      }
      int rel = g.schema().relationIndex("cites");
      CsrGraph csr = g.inNeighbors(rel);
      EdgeWeights w = g.weights(rel);
      long edges = 0;
      for (int v = 0; v < csr.numVertices(); v++) {
        TreeMap<Integer, Double> row = want.getOrDefault(v, new TreeMap<>());
        List<Integer> got = new ArrayList<>();
        for (long p = csr.rowStart(v); p < csr.rowEnd(v); p++) {
          got.add(csr.neighbor(p));
          assertThat((double) w.weight(p))
              .as("weight %d -> %d", csr.neighbor(p), v)
              .isCloseTo(row.get(csr.neighbor(p)), org.assertj.core.data.Offset.offset(1e-4));
        }
        assertThat(got).as("cites row %d", v).containsExactlyElementsOf(row.keySet());
        edges += row.size();
      }
      assertThat(csr.numEdges()).isEqualTo(edges);
    }
  }

  @Test
  void heldOutEdgesOfASymmetricLinkRelationAreInNeitherDirection() throws Exception {
    Path out = tmp.resolve("link");
    StoreManifest m =
        small("link", G.cites(spark))
            .option("task", "link")
            .option("link-relation", "cites")
            .option("edge-split", "0.6,0.2,0.2")
            .option("edge-split-negatives", "1")
            .option("edge-split-seed", "3")
            .execute()
            .manifest();
    assertThat(m.edgeSplit.removedFrom).containsExactly("cites");
    try (TypedGraphStore g = TypedGraphStore.open(out, true)) {
      Map<Object, Integer> paper = dense(g, 0);
      Set<Long> all = new HashSet<>();
      for (Row r : G.cites) {
        int s = paper.get(r.get(0));
        int d = paper.get(r.get(1));
        all.add(pair(Math.min(s, d), Math.max(s, d)));
      }
      Set<Long> trained = new HashSet<>();
      CsrGraph csr = g.inNeighbors(g.schema().relationIndex("cites"));
      for (int v = 0; v < csr.numVertices(); v++) {
        for (long p = csr.rowStart(v); p < csr.rowEnd(v); p++) {
          trained.add(pair(csr.neighbor(p), v));
        }
      }
      Set<Long> heldOut = new HashSet<>();
      for (String split : StoreLayout.HELD_OUT_SPLITS) {
        HeldOutEdges h = HeldOutEdges.read(g, split);
        for (int i = 0; i < h.size(); i++) {
          int a = h.src[i];
          int b = h.dst[i];
          if (h.label[i] == 1) {
            assertThat(a).as("smaller dense id first").isLessThanOrEqualTo(b);
            assertThat(trained).as("%s %d-%d", split, a, b).doesNotContain(pair(a, b));
            assertThat(trained).as("%s %d-%d reversed", split, a, b).doesNotContain(pair(b, a));
            assertThat(heldOut.add(pair(a, b))).as("held out twice").isTrue();
          } else {
            assertThat(all)
                .as("negative %d-%d", a, b)
                .doesNotContain(pair(Math.min(a, b), Math.max(a, b)));
          }
        }
        assertThat(h.positives()).isPositive();
      }
      // every training pair is stored both ways round; held-out and trained pairs cover the input
      Set<Long> trainedPairs = new HashSet<>();
      for (long e : trained) {
        int s = (int) (e >>> 32);
        int d = (int) e;
        assertThat(trained).contains(pair(d, s));
        trainedPairs.add(pair(Math.min(s, d), Math.max(s, d)));
      }
      assertThat(trainedPairs).doesNotContainAnyElementsOf(heldOut);
      Set<Long> union = new HashSet<>(trainedPairs);
      union.addAll(heldOut);
      assertThat(union).isEqualTo(all);
    }
  }

  @Test
  void dryRunCountsTheDoubledEdges() {
    PreparePlan plan = typed("dry", G.cites(spark)).option("dry-run", "true").execute().plan();
    long cites = 2L * G.cites.size();
    assertThat(plan.partitions().stream().mapToLong(PreparePlan.Partition::edges).sum())
        .isEqualTo(cites + 2L * G.writes.size() + 2L * G.hasTerm.size());
    assertThat(plan.describe())
        .contains(
            String.format(
                java.util.Locale.ROOT,
                "relation %-20s paper -> paper, %,d edges, both ways round (--undirected)%n",
                "cites",
                cites))
        .contains(
            String.format(
                java.util.Locale.ROOT,
                "relation %-20s paper -> author, %,d edges (added reverse)%n",
                "rev_writes",
                G.writes.size()))
        .contains("--undirected doubles every edge of a relation within one type");
  }

  @Test
  void refusalsNameTheOptionAndTheRelation() {
    Dataset<Row> revWrites = G.writtenBy(spark);
    assertThatThrownBy(
            () ->
                typed("clash", G.cites(spark))
                    .edges("rev_writes", "paper", "author", revWrites)
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("relation 'writes'")
        .hasMessageContaining("--undirected would add its reverse as 'rev_writes'")
        .hasMessageContaining("\"reverse_of\": \"writes\"");
    // a split column must give both directions of a pair of a symmetric relation one split
    List<Row> rows = new ArrayList<>();
    Row first = G.cites.get(0);
    rows.add(RowFactory.create(first.get(0), first.get(1), "train"));
    rows.add(RowFactory.create(first.get(1), first.get(0), "test"));
    Dataset<Row> cites =
        spark.createDataFrame(
            rows, TypedGraphFixture.LONG_EDGES.add("split", DataTypes.StringType, false));
    assertThatThrownBy(
            () ->
                small("column", cites)
                    .option("link-relation", "cites")
                    .option("edge-split-column", "split")
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("relation 'cites'")
        .hasMessageContaining("(either direction)")
        .hasMessageContaining("expected every edge of a pair in the same split");
  }

  /** Each destination's in-neighbors ascending, as the store's rows should hold them. */
  static Map<Integer, List<Integer>> reference(
      List<Row> rows,
      Map<Object, Integer> src,
      Map<Object, Integer> dst,
      boolean symmetric,
      boolean dedupe,
      boolean flip) {
    Map<Integer, List<Integer>> in = new HashMap<>();
    for (Row r : rows) {
      int s = src.get(r.get(0));
      int d = dst.get(r.get(1));
      if (flip) {
        in.computeIfAbsent(s, k -> new ArrayList<>()).add(d);
      } else {
        in.computeIfAbsent(d, k -> new ArrayList<>()).add(s);
      }
      if (symmetric && s != d) {
        in.computeIfAbsent(s, k -> new ArrayList<>()).add(d);
      }
    }
    for (List<Integer> l : in.values()) {
      l.sort(null);
      if (dedupe) {
        List<Integer> distinct = l.stream().distinct().toList();
        l.clear();
        l.addAll(distinct);
      }
    }
    return in;
  }

  static void assertRows(
      String what, TypedGraphStore g, String relation, Map<Integer, List<Integer>> want) {
    CsrGraph csr = g.inNeighbors(g.schema().relationIndex(relation));
    long edges = 0;
    for (int v = 0; v < csr.numVertices(); v++) {
      List<Integer> got = new ArrayList<>();
      for (long p = csr.rowStart(v); p < csr.rowEnd(v); p++) {
        got.add(csr.neighbor(p));
      }
      List<Integer> row = want.getOrDefault(v, List.of());
      assertThat(got).as("%s row %d", what, v).isEqualTo(row);
      edges += row.size();
    }
    assertThat(csr.numEdges()).as(what).isEqualTo(edges);
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

  private static long pair(int src, int dst) {
    return ((long) src << 32) | dst;
  }
}
