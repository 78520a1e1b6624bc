package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareResult;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code prepare --undirected --dedupe --self-loops drop} on the real datasets. */
@Tag("slow")
class PrepareDatasetsTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PrepareDatasetsTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @ParameterizedTest
  @CsvSource({
    "cora,2708,10556,1433,7,140,500,1000,1068,1",
    "citeseer,3327,9104,3703,6,120,500,1000,1707,2",
    "amazon_photo,7650,238162,745,8,4591,1530,1529,0,3",
    "coauthor_cs,18333,163788,6805,15,11000,3668,3665,0,2"
  })
  void undirectedDedupedEdgesMatchDistinctPairs(
      String name,
      long vertices,
      long edges,
      int dim,
      int classes,
      long train,
      long val,
      long test,
      long none,
      int partitions) {
    Path ds = SparkTestSession.dataset(name);
    PrepareResult r =
        Fanout.get(spark)
            .prepare()
            .option("vertices", ds.resolve("vertices.parquet").toString())
            .option("edges", ds.resolve("edges.parquet").toString())
            .option("undirected", "true")
            .option("dedupe", "true")
            .option("self-loops", "drop")
            .option("partitions", Integer.toString(partitions))
            .output(tmp.resolve(name).toString())
            .execute();
    StoreManifest m = r.manifest();
    assertThat(r.skipped()).isFalse();
    assertThat(m.vertices).isEqualTo(vertices);
    assertThat(m.edges).isEqualTo(edges);
    assertThat(m.featureDim).isEqualTo(dim);
    assertThat(m.classes).isEqualTo(classes);
    assertThat(m.partitions).isEqualTo(partitions);
    assertThat(m.splitCounts)
        .isEqualTo(Map.of("train", train, "val", val, "test", test, "none", none));
    assertThat(m.droppedDanglingEdges).isZero();
  }
}
