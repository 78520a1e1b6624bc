package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --id-lookup task} (the csr tasks find dense ids in the vertex tasks' rank tables) writes
 * the bytes of {@code --id-lookup sql} (Spark joins the edges with the id map), for int and long
 * ids, directed and undirected, with self-loops kept or dropped and dangling edges; both match a
 * reference adjacency.
 */
class PrepareIdLookupTest {
  static SparkSession spark;
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PrepareIdLookupTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Vertices with scattered ids (negative ones too), seeded edges among them, dangling ones. */
  record Graph(Dataset<Row> vertices, Dataset<Row> edges, List<long[]> edgeList, long[] ids) {}

  static Graph graph(int n, int edges, int dangling, long seed, boolean longIds) {
    SplittableRandom r = new SplittableRandom(seed);
    DataType type = longIds ? DataTypes.LongType : DataTypes.IntegerType;
    long[] ids = new long[n];
    TreeSet<Long> used = new TreeSet<>();
    for (int i = 0; i < n; ) {
      long id = longIds ? r.nextLong() : r.nextInt(-50 * n - 50, 50 * n + 50);
      if (used.add(id)) {
        ids[i++] = id;
      }
    }
    List<Row> vs = new ArrayList<>();
    for (long id : ids) {
      vs.add(RowFactory.create(longIds ? (Object) id : (Object) (int) id));
    }
    List<Row> es = new ArrayList<>();
    List<long[]> list = new ArrayList<>();
    for (int i = 0; i < edges; i++) {
      long s = ids[r.nextInt(1 + r.nextInt(n))]; // skewed: pairs repeat, self-loops occur
      long d = ids[r.nextInt(n)];
      es.add(row(longIds, s, d));
      list.add(new long[] {s, d});
    }
    long missing = used.isEmpty() ? 7 : used.last() + 1;
    for (int i = 0; i < dangling; i++) {
      // a missing source, a missing destination, a missing self-loop in turn
      long known = n == 0 ? missing + 1 : ids[i % n];
      es.add(
          i % 3 == 0
              ? row(longIds, missing + i, known)
              : i % 3 == 1 ? row(longIds, known, missing + i) : row(longIds, missing, missing));
    }
    Collections.shuffle(es, new java.util.Random(seed));
    StructType v = new StructType().add("id", type);
    StructType e = new StructType().add("src", type).add("dst", type);
    return new Graph(spark.createDataFrame(vs, v), spark.createDataFrame(es, e), list, ids);
  }

  static Row row(boolean longIds, long s, long d) {
    return longIds ? RowFactory.create(s, d) : RowFactory.create((int) s, (int) d);
  }

  PrepareAction prepare(Graph g, String name, String lookup, boolean undirected, String loops) {
    return Fanout.get(spark)
        .prepare(g.vertices, g.edges)
        .option("partitions", "3")
        .option("dedupe", Boolean.toString(undirected))
        .option("undirected", Boolean.toString(undirected))
        .option("self-loops", loops)
        .option("dangling", "drop")
        .option("id-lookup", lookup)
        .output(tmp.resolve(name).toString());
  }

  /** Each vertex's in-neighbors in original ids, sorted, repeats kept unless deduped. */
  static Map<Long, List<Long>> reference(Graph g, boolean undirected, boolean dropLoops) {
    Map<Long, List<Long>> in = new HashMap<>();
    for (long id : g.ids) {
      in.put(id, new ArrayList<>());
    }
    for (long[] e : g.edgeList) {
      if (dropLoops && e[0] == e[1]) {
        continue;
      }
      in.get(e[1]).add(e[0]);
      if (undirected && e[0] != e[1]) {
        in.get(e[0]).add(e[1]);
      }
    }
    for (Map.Entry<Long, List<Long>> x : in.entrySet()) {
      List<Long> l = undirected ? new ArrayList<>(new TreeSet<>(x.getValue())) : x.getValue();
      Collections.sort(l);
      x.setValue(l);
    }
    return in;
  }

  void check(Graph g, String name, boolean undirected, String loops, int dangling)
      throws IOException {
    StoreManifest task = prepare(g, name + "-task", "task", undirected, loops).execute().manifest();
    StoreManifest sql = prepare(g, name + "-sql", "sql", undirected, loops).execute().manifest();
    PrepareEdgeSortTest.assertSameBytes(tmp.resolve(name + "-sql"), tmp.resolve(name + "-task"));
    assertThat(task.droppedDanglingEdges).isEqualTo(dangling);
    assertThat(sql.droppedDanglingEdges).isEqualTo(dangling);
    assertThat(PrepareEdgeSortTest.read(spark, tmp.resolve(name + "-task")))
        .isEqualTo(reference(g, undirected, loops.equals("drop")));
    try (Stream<Path> files = Files.walk(tmp.resolve(name + "-task"))) {
      assertThat(files.map(Path::toString)).noneMatch(f -> f.contains(EndpointLookup.DIR));
    }
  }

  @Test
  void graphsWithoutEdgesAndWithOne() throws IOException {
    check(graph(4, 0, 0, 1, false), "empty", true, "keep", 0);
    check(graph(1, 1, 0, 2, true), "one", true, "drop", 0);
  }

  @Test
  void smallGraphsWithIntAndLongIds() throws IOException {
    check(graph(40, 300, 5, 3, false), "small-int", false, "keep", 5);
    check(graph(40, 300, 6, 4, true), "small-long", true, "drop", 6);
  }

  @Test
  void mediumGraph() throws IOException {
    check(graph(3000, 40_000, 4, 5, true), "medium", true, "keep", 4);
  }

  @Test
  void aDanglingEdgeIsNamedInOriginalIds() {
    Graph g = graph(10, 20, 1, 6, false);
    long known = g.ids[0];
    long missing = Collections.max(java.util.Arrays.stream(g.ids).boxed().toList()) + 1;
    assertThatThrownBy(
            () ->
                prepare(g, "dangling", "task", false, "keep").option("dangling", "error").execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("1 edge(s) with an endpoint that is not a vertex id")
        .hasMessageContaining("e.g. edge " + missing + " -> " + known);
  }

  @Test
  void taskIsRefusedWhereItCannotApplyBeforeAnyWork() {
    Graph g = graph(10, 20, 0, 7, true);
    assertThatThrownBy(
            () ->
                prepare(g, "range", "task", false, "keep").option("partitioner", "range").execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("--id-lookup task does not apply to --partitioner range")
        .hasMessageContaining("use --id-lookup auto");
    assertThatThrownBy(
            () -> prepare(g, "sorted", "task", false, "keep").option("edge-sort", "sql").execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("does not apply to --edge-sort sql");
    Dataset<Row> strings = g.vertices.selectExpr("cast(id as string) as id");
    Dataset<Row> stringEdges =
        g.edges.selectExpr("cast(src as string) src", "cast(dst as string) dst");
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .prepare(strings, stringEdges)
                    .option("id-lookup", "task")
                    .output(tmp.resolve("strings").toString())
                    .execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("does not apply to string vertex ids");
    assertThat(tmp.resolve("range")).doesNotExist();
    assertThat(tmp.resolve("strings")).doesNotExist();
  }

  @Test
  void autoFallsBackToTheJoinsWhereTaskCannotApply() throws IOException {
    Graph g = graph(30, 100, 0, 8, true);
    StoreManifest auto =
        prepare(g, "auto-range", "auto", false, "keep")
            .option("partitioner", "range")
            .execute()
            .manifest();
    prepare(g, "sql-range", "sql", false, "keep").option("partitioner", "range").execute();
    PrepareEdgeSortTest.assertSameBytes(tmp.resolve("sql-range"), tmp.resolve("auto-range"));
    assertThat(auto.edges).isEqualTo(100);
  }

  @Test
  void theDryRunPlansNoJoinShuffleButTheTables() {
    Graph g = graph(2000, 5000, 0, 9, true);
    String threshold = "spark.sql.autoBroadcastJoinThreshold";
    spark.conf().set(threshold, "-1"); // the id map is joined by shuffles, not broadcast
    try {
      PreparePlan task =
          prepare(g, "dry-task", "task", true, "keep").option("dry-run", "true").execute().plan();
      PreparePlan sql =
          prepare(g, "dry-sql", "sql", true, "keep").option("dry-run", "true").execute().plan();
      String join = "join edge endpoints with the id map";
      assertThat(sql.shuffleBytesByStep()).containsKey(join);
      assertThat(task.shuffleBytesByStep()).doesNotContainKey(join);
      assertThat(task.shuffleBytes()).isLessThan(sql.shuffleBytes());
      long tables = 0;
      for (PreparePlan.Partition p : task.partitions()) {
        tables += io.fanout.store.IdRankTable.fileBytes(p.vertices());
      }
      assertThat(tables).isEqualTo(3 * (64 + 16 * 1024)); // 667 or 666 ids: 1024 slots each
      assertThat(task.describe()).contains("id rank tables (" + tables + " bytes)");
      assertThat(sql.describe()).doesNotContain("id rank tables");
    } finally {
      spark.conf().unset(threshold);
    }
  }

  @Test
  void theTasksHashIdsAsTheHashPartitionerDoesInSpark() {
    SplittableRandom r = new SplittableRandom(10);
    List<Row> rows = new ArrayList<>();
    long[] ids = new long[200];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i < 4 ? new long[] {0, -1, Long.MIN_VALUE, Long.MAX_VALUE}[i] : r.nextLong();
      rows.add(RowFactory.create(ids[i], (int) ids[i]));
    }
    Dataset<Row> t =
        spark.createDataFrame(
            rows, new StructType().add("l", DataTypes.LongType).add("i", DataTypes.IntegerType));
    for (int parts : new int[] {1, 3, 7, 200}) {
      io.fanout.spark.partition.VertexPartitioner hash =
          io.fanout.spark.partition.VertexPartitioners.byName("hash");
      List<Row> got =
          t.select(
                  hash.assign(t, t.col("l"), parts).as("pl"),
                  hash.assign(t, t.col("i"), parts).as("pi"))
              .collectAsList();
      for (int i = 0; i < ids.length; i++) {
        assertThat(got.get(i).getInt(0))
            .isEqualTo(io.fanout.spark.partition.HashPartitioner.partitionOf(ids[i], true, parts));
        assertThat(got.get(i).getInt(1))
            .isEqualTo(
                io.fanout.spark.partition.HashPartitioner.partitionOf((int) ids[i], false, parts));
      }
    }
  }
}
