package io.fanout.spark.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import io.fanout.testing.JobDescriptions;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.CandidatePairChunks;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The candidate pairs table reaches the driver a partition at a time and comes back in chunks: a
 * table of several chunks gives every pair once, in the table's row order, and an unknown id is
 * refused by its row in the whole table. (The original ids' round trip through the spill file:
 * {@code CandidatePairFileTest}.)
 */
class CandidatePairsReaderTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path idmap;

  /** Vertex {@code 10 * v} has dense id {@code v}, {@code v < 20}. */
  @BeforeAll
  static void idMap() {
    spark = SparkTestSession.start("CandidatePairsReaderTest");
    List<Row> rows = new ArrayList<>();
    for (int v = 0; v < 20; v++) {
      rows.add(RowFactory.create(10L * v, v));
    }
    StructType t =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("dense_id", DataTypes.IntegerType, false);
    idmap = tmp.resolve("idmap");
    spark.createDataFrame(rows, t).repartition(3).write().parquet(idmap.toString());
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** A one-file Parquet table of pairs {@code (a[i], b[i])}. */
  private static String table(String name, long[] a, long[] b) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < a.length; i++) {
      rows.add(RowFactory.create(a[i], b[i]));
    }
    StructType t = new StructType().add("a", DataTypes.LongType).add("b", DataTypes.LongType);
    String path = tmp.resolve(name).toString();
    spark.createDataFrame(rows, t).coalesce(1).write().parquet(path);
    return path;
  }

  private static CandidatePairChunks read(String table, int chunk) {
    CandidatePairsReader.Endpoints ids =
        new CandidatePairsReader.Endpoints(idmap, "long", idmap, "long", "");
    return CandidatePairsReader.read(
        spark, tmp.resolve("graph"), ids, table, "parquet", "a", "b", chunk);
  }

  /** "dense src dense dst" of every pair, checking that chunks follow on. */
  private static List<String> pairs(CandidatePairChunks c) {
    List<String> out = new ArrayList<>();
    c.forEach(
        (first, p) -> {
          assertThat(first).isEqualTo(out.size());
          for (int i = 0; i < p.size(); i++) {
            out.add(p.src()[i] + " " + p.dst()[i]);
          }
        });
    return out;
  }

  @Test
  void aTableOfSeveralChunksGivesItsPairsInTableOrder() throws Exception {
    int n = 17;
    long[] a = new long[n];
    long[] b = new long[n];
    List<String> want = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      a[i] = 10L * ((7 * i) % 20);
      b[i] = 10L * ((3 * i + 5) % 20);
      want.add(a[i] / 10 + " " + b[i] / 10);
    }
    String t = table("pairs", a, b);
    try (JobDescriptions jobs = JobDescriptions.record(spark);
        CandidatePairChunks many = read(t, 4)) {
      assertThat(jobs.seen())
          .isNotEmpty()
          .containsOnly("fanout infer: " + CandidatePairsReader.STEP + " (1/1)");
      assertThat(many.size()).isEqualTo(n);
      assertThat(pairs(many)).containsExactlyElementsOf(want);
      List<Integer> sizes = new ArrayList<>();
      many.forEach((first, p) -> sizes.add(p.size()));
      assertThat(sizes).containsExactly(4, 4, 4, 4, 1);
    }
  }

  @Test
  void anUnknownIdIsRefusedByItsRowInTheWholeTable() {
    long[] a = new long[9];
    long[] b = new long[9];
    for (int i = 0; i < 9; i++) {
      a[i] = 10L * i;
      b[i] = i == 6 ? 15L : 10L;
    }
    String t = table("bad", a, b);
    assertThatThrownBy(() -> read(t, 2).close())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("pairs table " + t + ": column 'b' row 6 (0-based) has value '15'")
        .hasMessageContaining("not a vertex id");
  }
}
