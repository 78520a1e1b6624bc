package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.GraphStore;
import io.fanout.spark.Fanout;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --edge-sort task} (the csr tasks counting-sort their edges) writes the bytes of {@code
 * --edge-sort sql} (Spark sorts the rows), and both match a reference adjacency.
 */
class PrepareEdgeSortTest {
  static SparkSession spark;
  @TempDir Path tmp;

  static final StructType V = new StructType().add("id", DataTypes.LongType);
  static final StructType E =
      new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType);

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PrepareEdgeSortTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /**
   * Vertices {@code 0, 10, 20, ...} and {@code edges} seeded edges among them plus dangling ones.
   */
  record Graph(Dataset<Row> vertices, Dataset<Row> edges, List<long[]> edgeList, int n) {}

  static Graph graph(int n, int edges, int dangling, long seed) {
    List<Row> vs = new ArrayList<>();
    for (long v = 0; v < n; v++) {
      vs.add(RowFactory.create(v * 10));
    }
    SplittableRandom r = new SplittableRandom(seed);
    List<Row> es = new ArrayList<>();
    List<long[]> list = new ArrayList<>();
    for (int i = 0; i < edges; i++) {
      // a skewed source, so some pairs repeat; self-loops occur
      long s = r.nextInt(1 + r.nextInt(n)) * 10L;
      long d = r.nextInt(n) * 10L;
      es.add(RowFactory.create(s, d));
      list.add(new long[] {s, d});
    }
    for (int i = 0; i < dangling; i++) {
      es.add(RowFactory.create(10L * n + 5 + i, 0L));
    }
    Collections.shuffle(es, new java.util.Random(seed));
    return new Graph(spark.createDataFrame(vs, V), spark.createDataFrame(es, E), list, n);
  }

  StoreManifest prepare(Graph g, String name, String sort, boolean dedupe, boolean undirected) {
    return Fanout.get(spark)
        .prepare(g.vertices, g.edges)
        .option("partitions", "3")
        .option("dedupe", Boolean.toString(dedupe))
        .option("undirected", Boolean.toString(undirected))
        .option("dangling", "drop")
        .option("edge-sort", sort)
        .output(tmp.resolve(name).toString())
        .execute()
        .manifest();
  }

  /** Stores {@code a} and {@code b} list the same files with the same bytes, manifests included. */
  static void assertSameBytes(Path a, Path b) throws IOException {
    StoreManifest ma = StoreManifest.read(a);
    StoreManifest mb = StoreManifest.read(b);
    assertThat(mb.files)
        .extracting(f -> f.path)
        .isEqualTo(ma.files.stream().map(f -> f.path).toList());
    for (StoreManifest.FileEntry f : ma.files) {
      assertThat(Files.readAllBytes(mb.dataRoot(b).resolve(f.path)))
          .as(f.path)
          .isEqualTo(Files.readAllBytes(ma.dataRoot(a).resolve(f.path)));
    }
    assertThat(Files.readAllBytes(b.resolve(StoreLayout.MANIFEST)))
        .isEqualTo(Files.readAllBytes(a.resolve(StoreLayout.MANIFEST)));
  }

  /** Each vertex's in-neighbors (original ids, sorted, repeats kept unless deduped). */
  static Map<Long, List<Long>> reference(Graph g, boolean dedupe, boolean undirected) {
    Map<Long, List<Long>> in = new HashMap<>();
    for (long v = 0; v < g.n; v++) {
      in.put(v * 10, new ArrayList<>());
    }
    for (long[] e : g.edgeList) {
      in.get(e[1]).add(e[0]);
      if (undirected && e[0] != e[1]) {
        in.get(e[0]).add(e[1]);
      }
    }
    for (Map.Entry<Long, List<Long>> x : in.entrySet()) {
      List<Long> l = dedupe ? new ArrayList<>(new TreeSet<>(x.getValue())) : x.getValue();
      Collections.sort(l);
      x.setValue(l);
    }
    return in;
  }

  static Map<Long, List<Long>> read(Path store) {
    return read(spark, store);
  }

  /** Each vertex's in-neighbors in original ids (sorted) as the store at {@code store} has them. */
  static Map<Long, List<Long>> read(SparkSession spark, Path store) {
    Map<Long, List<Long>> in = new HashMap<>();
    try (GraphStore g = GraphStore.open(store, true)) {
      long[] ids = PrepareWeightsTest.denseToId(spark, g);
      CsrGraph csr = g.csr();
      for (int v = 0; v < csr.numVertices(); v++) {
        List<Long> l = new ArrayList<>();
        for (long p = csr.rowStart(v); p < csr.rowEnd(v); p++) {
          l.add(ids[csr.neighbor(p)]);
        }
        Collections.sort(l); // dense order need not follow original order
        in.put(ids[v], l);
      }
    }
    return in;
  }

  void check(Graph g, String name, boolean dedupe, boolean undirected, int dangling)
      throws IOException {
    StoreManifest task = prepare(g, name + "-task", "task", dedupe, undirected);
    StoreManifest sql = prepare(g, name + "-sql", "sql", dedupe, undirected);
    assertSameBytes(tmp.resolve(name + "-sql"), tmp.resolve(name + "-task"));
    assertThat(task.droppedDanglingEdges).isEqualTo(dangling);
    assertThat(sql.droppedDanglingEdges).isEqualTo(dangling);
    assertThat(read(tmp.resolve(name + "-task"))).isEqualTo(reference(g, dedupe, undirected));
  }

  @Test
  void graphsWithoutEdgesAndWithOne() throws IOException {
    check(graph(5, 0, 0, 1), "empty", false, false, 0);
    check(graph(1, 1, 0, 2), "one", false, true, 0);
  }

  @Test
  void smallGraphWithRepeatsLoopsAndDanglingEdges() throws IOException {
    Graph g = graph(40, 300, 3, 3);
    check(g, "small", false, false, 3);
    check(g, "small-dedupe", true, true, 3);
  }

  @Test
  void mediumGraph() throws IOException {
    check(graph(3000, 40_000, 2, 4), "medium", true, true, 2);
  }

  /** Input of EdgePartTask: (part, dst << 32 | src, orig). */
  static InternalRow row(int part, long dst, long src) {
    return new GenericInternalRow(
        new Object[] {
          part, part < 0 ? -1L : dst << 32 | src, part < 0 ? UTF8String.fromString("x -> y") : null
        });
  }

  /**
   * A task holding several store partitions, interleaved (Spark routes one partition a task, but
   * the writer does not depend on it): the same files and metadata as the sorted input.
   */
  @Test
  void aTaskHoldingSeveralPartitionsInShuffleOrder() throws IOException {
    long[] firsts = {0, 4, 4, 10}; // partition 1 has no vertices
    long[] counts = {4, 0, 6};
    List<InternalRow> rows = new ArrayList<>();
    SplittableRandom r = new SplittableRandom(5);
    for (int i = 0; i < 200; i++) {
      int p = r.nextInt(4) == 0 ? 0 : 2;
      long dst = p == 0 ? r.nextInt(3) : 4 + r.nextInt(5); // rows 3 and 9 stay empty
      rows.add(row(p, dst, r.nextInt(10)));
    }
    rows.add(row(-1, 0, 0));
    List<InternalRow> sorted = new ArrayList<>(rows);
    sorted.sort(
        (a, b) ->
            a.getInt(0) != b.getInt(0)
                ? Integer.compare(a.getInt(0), b.getInt(0))
                : Long.compare(a.getLong(1), b.getLong(1)));
    for (boolean dedupe : new boolean[] {false, true}) {
      Path a =
          Files.createDirectories(tmp.resolve("sorted-" + dedupe).resolve(StoreLayout.CSR_DIR));
      Path b = Files.createDirectories(tmp.resolve("task-" + dedupe).resolve(StoreLayout.CSR_DIR));
      List<Row> metaA =
          run(
              new EdgePartTask(
                  a.getParent().toString(), firsts, counts, dedupe, null, false, 0, null, false),
              sorted);
      List<Row> metaB =
          run(
              new EdgePartTask(
                  b.getParent().toString(), firsts, counts, dedupe, null, true, 0, null, false),
              rows);
      assertThat(metaB).isEqualTo(metaA);
      assertThat(metaA).extracting(m -> m.getInt(0)).containsExactly(0, 2, -1);
      for (String f : new String[] {StoreLayout.csrFile(0), StoreLayout.csrFile(2)}) {
        assertThat(Files.readAllBytes(b.getParent().resolve(f)))
            .as(f)
            .isEqualTo(Files.readAllBytes(a.getParent().resolve(f)));
      }
      try (var s = Files.list(b)) {
        assertThat(s.map(p -> p.getFileName().toString()).sorted().toList())
            .containsExactly("part-00000.csr", "part-00002.csr");
      }
    }
  }

  @Test
  void aPartitionTooLargeForTheTaskSortFailsNamingTheWayOut() throws IOException {
    Path root =
        Files.createDirectories(tmp.resolve("big").resolve(StoreLayout.CSR_DIR)).getParent();
    List<InternalRow> rows = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      rows.add(row(0, i % 100, i));
    }
    long[] firsts = {0, 100};
    long[] counts = {100};
    EdgePartTask small =
        new EdgePartTask(root.toString(), firsts, counts, false, null, true, 30_000, null, false);
    assertThatThrownBy(() -> run(small, rows))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("store partition 0 has more edges than its csr task may sort")
        .hasMessageContaining("raise --partitions, or use --edge-sort sql");
    EdgePartTask enough =
        new EdgePartTask(root.toString(), firsts, counts, false, null, true, 1 << 20, null, false);
    assertThat(run(enough, rows)).extracting(m -> m.getLong(1)).containsExactly(5000L);
  }

  static List<Row> run(EdgePartTask task, List<InternalRow> rows) {
    List<Row> out = new ArrayList<>();
    Iterator<Row> it = task.call(rows.iterator());
    it.forEachRemaining(out::add);
    return out;
  }
}
