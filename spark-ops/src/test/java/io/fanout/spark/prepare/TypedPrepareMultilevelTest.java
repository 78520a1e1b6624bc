package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
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

/**
 * {@code prepare --partitioner multilevel} on a typed graph partitions users and items together
 * over both relations: on a seeded graph of four communities (each spanning both types) it cuts
 * fewer relation edges than hash partitioning, keeps every partition (all types together) within
 * 1.05 times the mean, records each vertex's part in its type's id map, holds the input's edges in
 * original ids, and writes the same bytes whatever Spark's task counts.
 */
class TypedPrepareMultilevelTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  static final int USERS = 160;
  static final int ITEMS = 120;
  static final int PARTS = 4;
  static final List<Row> USER_ROWS = new ArrayList<>();
  static final List<Row> ITEM_ROWS = new ArrayList<>();
  static final List<Row> FOLLOWS = new ArrayList<>();
  static final List<Row> BOUGHT = new ArrayList<>();

  static {
    // user i (id 1000 + 7i) and item j (id 3j) are in community i mod 4 and j mod 4; nine edges
    // in ten stay within their community
    Random r = new Random(5);
    for (int i = 0; i < USERS; i++) {
      USER_ROWS.add(RowFactory.create(1000L + 7L * i));
    }
    for (int j = 0; j < ITEMS; j++) {
      ITEM_ROWS.add(RowFactory.create(3 * j));
    }
    for (int k = 0; k < 500; k++) {
      int s = r.nextInt(USERS);
      FOLLOWS.add(RowFactory.create(1000L + 7L * s, 1000L + 7L * partner(r, s, USERS)));
    }
    for (int k = 0; k < 400; k++) {
      int s = r.nextInt(USERS);
      BOUGHT.add(RowFactory.create(1000L + 7L * s, 3 * partner(r, s, ITEMS)));
    }
  }

  /** A vertex of {@code n} in the community of {@code s} nine times in ten, else any. */
  static int partner(Random r, int s, int n) {
    if (r.nextInt(10) == 0) {
      return r.nextInt(n);
    }
    return (r.nextInt(n / PARTS) * PARTS + s % PARTS) % n;
  }

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedPrepareMultilevelTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static PrepareAction prepare(String partitioner, String name, int inputParts) {
    Dataset<Row> users =
        spark.createDataFrame(USER_ROWS, new StructType().add("id", DataTypes.LongType));
    Dataset<Row> items =
        spark.createDataFrame(ITEM_ROWS, new StructType().add("id", DataTypes.IntegerType));
    Dataset<Row> follows =
        spark.createDataFrame(
            FOLLOWS,
            new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType));
    Dataset<Row> bought =
        spark.createDataFrame(
            BOUGHT,
            new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.IntegerType));
    return Fanout.get(spark)
        .prepare()
        .vertices("user", users.repartition(inputParts))
        .vertices("item", items.repartition(inputParts))
        .edges("follows", "user", "user", follows.repartition(inputParts))
        .edges("bought", "user", "item", bought.repartition(inputParts))
        .option("add-reverse", "true")
        .option("partitions", Integer.toString(PARTS))
        .option("partitioner", partitioner)
        .output(tmp.resolve(name).toString());
  }

  private static StoreManifest multilevel;

  static synchronized StoreManifest multilevel() {
    if (multilevel == null) {
      multilevel = prepare("multilevel", "multilevel", 1).execute().manifest();
    }
    return multilevel;
  }

  /** The partition holding type-local vertex {@code v}, for partitions starting at {@code s}. */
  static int partOf(long[] starts, long v) {
    int p = 0;
    while (v >= starts[p + 1]) {
      p++;
    }
    return p;
  }

  /** The relation edges whose endpoints lie in partitions of different indexes. */
  static long cut(Path store) {
    long cut = 0;
    try (TypedGraphStore g = TypedGraphStore.open(store, true)) {
      TypedSchema s = g.schema();
      for (int r = 0; r < s.numRelations(); r++) {
        CsrGraph csr = g.inNeighbors(r);
        long[] src = g.partitionStarts(s.relation(r).srcType());
        long[] dst = g.partitionStarts(s.relation(r).dstType());
        for (int v = 0; v < csr.numVertices(); v++) {
          int pv = partOf(dst, v);
          for (long i = csr.rowStart(v); i < csr.rowEnd(v); i++) {
            cut += partOf(src, csr.neighbor(i)) != pv ? 1 : 0;
          }
        }
      }
    }
    return cut;
  }

  /** Every relation's edges as {@code relation:src->dst} in original ids, sorted. */
  static List<String> edges(Path store) {
    List<String> out = new ArrayList<>();
    try (TypedGraphStore g = TypedGraphStore.open(store, true)) {
      TypedSchema s = g.schema();
      List<Map<Integer, Object>> ids = new ArrayList<>();
      for (int t = 0; t < s.numTypes(); t++) {
        Map<Integer, Object> m = new java.util.HashMap<>();
        for (Row r : spark.read().parquet(g.idMap(t).toString()).collectAsList()) {
          m.put(r.getInt(r.fieldIndex("dense_id")), r.get(r.fieldIndex("id")));
        }
        ids.add(m);
      }
      for (int r = 0; r < s.numRelations(); r++) {
        TypedSchema.Relation rel = s.relation(r);
        CsrGraph csr = g.inNeighbors(r);
        for (int v = 0; v < csr.numVertices(); v++) {
          for (long i = csr.rowStart(v); i < csr.rowEnd(v); i++) {
            out.add(
                rel.name()
                    + ":"
                    + ids.get(rel.srcType()).get(csr.neighbor(i))
                    + "->"
                    + ids.get(rel.dstType()).get(v));
          }
        }
      }
    }
    Collections.sort(out);
    return out;
  }

  /** The input's edges as {@link #edges} lists them, the added reverses included. */
  static List<String> reference() {
    List<String> out = new ArrayList<>();
    for (Row e : FOLLOWS) {
      out.add("follows:" + e.get(0) + "->" + e.get(1));
      out.add("rev_follows:" + e.get(1) + "->" + e.get(0));
    }
    for (Row e : BOUGHT) {
      out.add("bought:" + e.get(0) + "->" + e.get(1));
      out.add("rev_bought:" + e.get(1) + "->" + e.get(0));
    }
    Collections.sort(out);
    return out;
  }

  /** The cut of {@code --partitioner hash}: each id in partition xxhash64(id) mod P of its type. */
  static long hashCut() {
    long cut = 0;
    for (Row e : FOLLOWS) {
      cut += 2 * (hash(e.getLong(0), true) != hash(e.getLong(1), true) ? 1 : 0);
    }
    for (Row e : BOUGHT) {
      cut += 2 * (hash(e.getLong(0), true) != hash(e.getInt(1), false) ? 1 : 0);
    }
    return cut;
  }

  static int hash(long id, boolean longIds) {
    return io.fanout.spark.partition.HashPartitioner.partitionOf(id, longIds, PARTS);
  }

  @Tag("slow")
  @Test
  void cutsFewerEdgesThanHashWithBalancedPartsAndTheInputEdges() {
    StoreManifest m = multilevel();
    long multilevelCut = cut(tmp.resolve("multilevel"));
    long hashCut = hashCut();
    System.out.printf(
        "typed edge cut at %d parts: multilevel %d, hash %d of %d edges%n",
        PARTS, multilevelCut, hashCut, m.edges);
    assertThat(multilevelCut).isLessThan(hashCut);
    assertThat(edges(tmp.resolve("multilevel"))).isEqualTo(reference());

    assertThat(m.options).containsEntry("partitioner", "multilevel");
    assertThat(m.options).containsEntry("partition-seed", "0");
    assertThat(m.types).allSatisfy(t -> assertThat(t.partitions).isEqualTo(PARTS));
    long max = (long) Math.floor(1.05 * (USERS + ITEMS) / PARTS);
    for (int p = 0; p < PARTS; p++) {
      long inP = 0;
      for (StoreManifest.TypeEntry t : m.types) {
        inP += m.partitionTable.get(t.firstPartition + p).numVertices;
      }
      assertThat(inP).as("partition " + p).isLessThanOrEqualTo(max);
    }
    try (TypedGraphStore g = TypedGraphStore.open(tmp.resolve("multilevel"), true)) {
      assertThat(g.verifyChecksums()).isEqualTo(m.files.size());
      for (int t = 0; t < 2; t++) {
        long[] starts = g.partitionStarts(t);
        List<Row> rows = spark.read().parquet(g.idMap(t).toString()).collectAsList();
        assertThat(rows).hasSize(t == 0 ? USERS : ITEMS);
        for (Row r : rows) {
          assertThat(r.getInt(r.fieldIndex("part")))
              .isEqualTo(partOf(starts, r.getInt(r.fieldIndex("dense_id"))));
        }
      }
    }
  }

  @Tag("slow")
  @Test
  void sameBytesWhateverTheTaskCounts() throws IOException {
    StoreManifest a = multilevel();
    String key = "spark.sql.shuffle.partitions";
    String before = spark.conf().get(key);
    spark.conf().set(key, "7");
    StoreManifest b;
    try {
      b = prepare("multilevel", "multilevel-b", 3).execute().manifest();
    } finally {
      spark.conf().set(key, before);
    }
    assertThat(b.files)
        .extracting(f -> f.path)
        .isEqualTo(a.files.stream().map(f -> f.path).toList());
    for (StoreManifest.FileEntry f : a.files) {
      assertThat(
              java.nio.file.Files.readAllBytes(
                  b.dataRoot(tmp.resolve("multilevel-b")).resolve(f.path)))
          .as(f.path)
          .isEqualTo(
              java.nio.file.Files.readAllBytes(
                  a.dataRoot(tmp.resolve("multilevel")).resolve(f.path)));
    }
  }

  @Test
  void theDryRunGivesEveryTypeThePartitionsOfAllTypes() {
    PreparePlan plan =
        prepare("multilevel", "dry", 1)
            .option("partitions", "0")
            .option("dry-run", "true")
            .execute()
            .plan();
    PreparePlan hash =
        prepare("hash", "dry-hash", 1)
            .option("partitions", "0")
            .option("dry-run", "true")
            .execute()
            .plan();
    int k = io.fanout.conf.options.PrepareOptions.autoPartitions(USERS + ITEMS);
    assertThat(plan.partitions()).hasSize(k);
    assertThat(plan.describe())
        .contains("multilevel partitions all types together")
        .contains("the multilevel partitioner's own shuffles are not estimated");
    // the id maps' part column
    assertThat(plan.storeBytesByKind().get("idmap"))
        .isEqualTo(hash.storeBytesByKind().get("idmap") + 4L * (USERS + ITEMS));
    assertThat(tmp.resolve("dry")).doesNotExist();
  }
}
