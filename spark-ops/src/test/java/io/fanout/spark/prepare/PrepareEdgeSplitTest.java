package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.GraphStore;
import io.fanout.graph.HeldOutCount;
import io.fanout.graph.HeldOutEdges;
import io.fanout.spark.Fanout;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code prepare --edge-split}: a seeded, disjoint, partition-independent split of edge pairs. */
class PrepareEdgeSplitTest {
  static SparkSession spark;
  static Dataset<Row> vertices;
  static Dataset<Row> edges;

  /** The input's undirected pairs "lo-hi" of original ids (no self-loops). */
  static final Set<String> PAIRS = new HashSet<>();

  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PrepareEdgeSplitTest");
    List<Row> v = new ArrayList<>();
    for (long i = 0; i < 300; i++) {
      v.add(RowFactory.create(i * 7));
    }
    List<Row> e = new ArrayList<>();
    Random r = new Random(5);
    for (int i = 0; i < 1500; i++) {
      long a = r.nextInt(300) * 7L;
      long b = r.nextInt(300) * 7L;
      e.add(RowFactory.create(a, b));
      if (i % 3 == 0) {
        e.add(RowFactory.create(b, a)); // both directions given: still one pair
      }
      if (a != b) {
        PAIRS.add(Math.min(a, b) + "-" + Math.max(a, b));
      }
    }
    vertices = spark.createDataFrame(v, new StructType().add("id", DataTypes.LongType));
    edges =
        spark.createDataFrame(
            e, new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType));
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  StoreManifest prepare(String name, String partitions, String... options) {
    var a =
        Fanout.get(spark)
            .prepare(vertices, edges)
            .option("undirected", "true")
            .option("dedupe", "true")
            .option("self-loops", "drop")
            .option("partitions", partitions);
    for (int i = 0; i < options.length; i += 2) {
      a = a.option(options[i], options[i + 1]);
    }
    return a.output(tmp.resolve(name).toString()).execute().manifest();
  }

  /** The pairs of a split as "lo-hi" original ids, label 1 or 0. */
  static Set<String> heldOut(GraphStore g, String split, int label, long[] ids) {
    HeldOutEdges h = HeldOutEdges.read(g, split);
    Set<String> out = new HashSet<>();
    for (int i = 0; i < h.size(); i++) {
      if (h.label[i] == label) {
        long a = ids[h.src[i]];
        long b = ids[h.dst[i]];
        assertThat(out.add(Math.min(a, b) + "-" + Math.max(a, b))).as("repeated pair").isTrue();
      }
    }
    return out;
  }

  static Set<String> trainPairs(GraphStore g, long[] ids) {
    Set<String> out = new HashSet<>();
    Set<String> directed = new HashSet<>();
    CsrGraph csr = g.csr();
    for (int v = 0; v < csr.numVertices(); v++) {
      for (long p = csr.rowStart(v); p < csr.rowEnd(v); p++) {
        long a = ids[csr.neighbor(p)];
        long b = ids[v];
        directed.add(a + ">" + b);
        out.add(Math.min(a, b) + "-" + Math.max(a, b));
      }
    }
    for (String s : out) { // both directions of every training pair are in the graph
      String[] ab = s.split("-");
      assertThat(directed).contains(ab[0] + ">" + ab[1], ab[1] + ">" + ab[0]);
    }
    return out;
  }

  @Tag("slow")
  @Test
  void splitIsDisjointCompleteAndIndependentOfPartitioning() throws IOException {
    StoreManifest m = prepare("a", "3", "task", "link");
    assertThat(m.edgeSplit.fractions).containsExactly(0.85, 0.05, 0.10);
    assertThat(m.options).containsEntry("task", "link");
    Set<String> train;
    Set<String> val;
    Set<String> test;
    try (GraphStore g = GraphStore.open(tmp.resolve("a"), true)) {
      long[] ids = PrepareWeightsTest.denseToId(spark, g);
      train = trainPairs(g, ids);
      val = heldOut(g, "val", 1, ids);
      test = heldOut(g, "test", 1, ids);
      for (String split : StoreLayout.HELD_OUT_SPLITS) {
        Set<String> pos = heldOut(g, split, 1, ids);
        Set<String> neg = heldOut(g, split, 0, ids);
        assertThat(neg).hasSameSizeAs(pos).doesNotContainAnyElementsOf(PAIRS);
        HeldOutEdges h = HeldOutEdges.read(g, split);
        for (int i = 0; i < h.size(); i++) {
          assertThat(h.src[i]).isNotEqualTo(h.dst[i]);
        }
        // counted without reading the pairs: <split>_pairs are the positives
        assertThat(HeldOutEdges.count(g, split))
            .isEqualTo(HeldOutCount.of(h))
            .isEqualTo(new HeldOutCount(pos.size() + neg.size(), pos.size()));
      }
    }
    assertThat(train).doesNotContainAnyElementsOf(val).doesNotContainAnyElementsOf(test);
    assertThat(val).doesNotContainAnyElementsOf(test);
    Set<String> all = new HashSet<>(train);
    all.addAll(val);
    all.addAll(test);
    assertThat(all).isEqualTo(PAIRS);
    assertThat(m.edgeSplit.trainPairs).isEqualTo(train.size());
    assertThat(m.edgeSplit.valPairs).isEqualTo(val.size());
    assertThat(m.edgeSplit.testPairs).isEqualTo(test.size());
    // 1,300+ pairs: 10% test is 130 +- 11 (1 sd); bounds at 5 sd
    assertThat(test.size()).isBetween(75, 185);
    assertThat(val.size()).isBetween(30, 100);

    // another partition count gives other dense ids, the same split
    prepare("b", "2", "edge-split", "0.85, 0.05, 0.10");
    try (GraphStore g = GraphStore.open(tmp.resolve("b"), true)) {
      long[] ids = PrepareWeightsTest.denseToId(spark, g);
      assertThat(heldOut(g, "val", 1, ids)).isEqualTo(val);
      assertThat(heldOut(g, "test", 1, ids)).isEqualTo(test);
    }
    // the same options give the same bytes; another seed another split
    prepare("c", "3", "task", "link");
    String f = StoreLayout.edgeSplitFile("test");
    assertThat(Files.readAllBytes(dataRoot("c").resolve(f)))
        .isEqualTo(Files.readAllBytes(dataRoot("a").resolve(f)));
    StoreManifest other = prepare("d", "3", "task", "link", "edge-split-seed", "1");
    try (GraphStore g = GraphStore.open(tmp.resolve("d"), true)) {
      long[] ids = PrepareWeightsTest.denseToId(spark, g);
      assertThat(heldOut(g, "test", 1, ids)).isNotEqualTo(test);
    }
    assertThat(other.files).extracting(e -> e.path).contains("edgesplit/val.parquet");
  }

  private Path dataRoot(String name) {
    Path store = tmp.resolve(name);
    return StoreManifest.read(store).dataRoot(store);
  }

  @Test
  void storesWithoutAnEdgeSplitAreUnchanged() throws IOException {
    StoreManifest m = prepare("plain", "2");
    assertThat(m.edgeSplit).isNull();
    assertThat(m.options).doesNotContainKeys("task", "edge-split", "edge-split-seed");
    assertThat(Files.readString(tmp.resolve("plain").resolve("manifest.json")))
        .doesNotContain("edge_split");
    try (GraphStore g = GraphStore.open(tmp.resolve("plain"), true)) {
      assertThatThrownBy(() -> HeldOutEdges.read(g, "val"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("has no edge split")
          .hasMessageContaining("--task link");
    }
  }

  @Test
  void badFractionsAreRejectedWithOneLine() {
    assertThatThrownBy(() -> prepare("x", "2", "edge-split", "0.8,0.1,0.2"))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessage(
            "--edge-split '0.8,0.1,0.2': fractions sum to 1.1; expected TRAIN,VAL,TEST fractions"
                + " >= 0 summing to 1 with TRAIN > 0, e.g. 0.85,0.05,0.10");
    assertThatThrownBy(() -> prepare("x", "2", "edge-split", "0.9,0.1"))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageStartingWith("--edge-split '0.9,0.1' has 2 value(s)");
    assertThatThrownBy(() -> prepare("x", "2", "edge-split", "0.9,x,0.1"))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageStartingWith("--edge-split '0.9,x,0.1': 'x' is not a number");
    assertThatThrownBy(() -> prepare("x", "2", "task", "link", "edge-split-negatives", "0"))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessage("--edge-split-negatives must be >= 1, got 0");
    assertThat(tmp.resolve("x")).doesNotExist();
  }
}
