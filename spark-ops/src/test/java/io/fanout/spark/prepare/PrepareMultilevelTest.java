package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareResult;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code prepare --partitioner multilevel} writes the same store whatever Spark's task counts. */
class PrepareMultilevelTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PrepareMultilevelTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static PrepareResult prepare(String partitioner, String out) {
    Path cora = SparkTestSession.dataset("cora");
    return Fanout.get(spark)
        .prepare()
        .option("vertices", cora.resolve("vertices.parquet").toString())
        .option("edges", cora.resolve("edges.parquet").toString())
        .option("undirected", "true")
        .option("dedupe", "true")
        .option("self-loops", "drop")
        .option("partitions", "4")
        .option("partitioner", partitioner)
        .output(tmp.resolve(out).toString())
        .execute();
  }

  /** Every file of a store, by path relative to its root. */
  static Map<String, byte[]> files(Path root) throws IOException {
    Map<String, byte[]> m = new TreeMap<>();
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        m.put(root.relativize(p).toString(), Files.readAllBytes(p));
      }
    }
    return m;
  }

  @Tag("slow")
  @Test
  void sameStoreBytesWhateverTheTaskCountsAndPartsInTheIdMap() throws IOException {
    PrepareResult a = prepare("multilevel", "a");
    String before = spark.conf().get("spark.sql.shuffle.partitions");
    spark.conf().set("spark.sql.shuffle.partitions", "9");
    try {
      prepare("multilevel", "b");
    } finally {
      spark.conf().set("spark.sql.shuffle.partitions", before);
    }
    Map<String, byte[]> fa = files(tmp.resolve("a"));
    Map<String, byte[]> fb = files(tmp.resolve("b"));
    assertThat(fb.keySet()).isEqualTo(fa.keySet());
    for (String f : fa.keySet()) {
      assertThat(fb.get(f)).as(f).isEqualTo(fa.get(f));
    }

    StoreManifest m = a.manifest();
    assertThat(m.options).containsEntry("partitioner", "multilevel");
    assertThat(m.options).containsEntry("partition-seed", "0");
    long max = (long) Math.floor(1.05 * m.vertices / 4);
    for (StoreManifest.Partition p : m.partitionTable) {
      assertThat(p.numVertices).isLessThanOrEqualTo(max);
    }
    Path idmap = m.dataRoot(tmp.resolve("a")).resolve(StoreLayout.IDMAP_DIR);
    List<Row> rows = spark.read().parquet(idmap.toString()).collectAsList();
    assertThat(rows).hasSize(2708);
    for (Row r : rows) {
      int dense = r.getInt(r.fieldIndex("dense_id"));
      StoreManifest.Partition p = m.partitionTable.get(r.getInt(r.fieldIndex("part")));
      assertThat(dense).isBetween((int) p.firstVertex, (int) (p.firstVertex + p.numVertices - 1));
    }
  }

  @Test
  void hashStoresKeepTheirIdMapAndOptions() {
    PrepareResult h = prepare("hash", "h");
    assertThat(h.manifest().options)
        .doesNotContainKeys("partition-seed", "partition-coarse-vertices");
    Path idmap = h.manifest().dataRoot(tmp.resolve("h")).resolve(StoreLayout.IDMAP_DIR);
    assertThat(spark.read().parquet(idmap.toString()).columns()).containsExactly("dense_id", "id");
  }

  @Test
  void refusesACoarseGraphOfNoVertices() {
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .prepare()
                    .option("vertices", "v")
                    .option("edges", "e")
                    .option("partitioner", "multilevel")
                    .option("partition-coarse-vertices", "0")
                    .output(tmp.resolve("bad").toString())
                    .execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("--partition-coarse-vertices must be >= 1, got 0");
  }
}
