package io.fanout.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.GraphStore;
import io.fanout.prepare.Fanout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code prepare} with part files written by two executor JVMs gives the same store as on {@code
 * local[2]}: the same bytes for CSR, features and nodes, the same rows in the id map.
 */
class PrepareLocalClusterTest {
  @TempDir Path tmp;

  private static void prepare(SparkSession spark, Path out) {
    Path cora = SparkTestSession.dataset("cora");
    Fanout.get(spark)
        .prepare()
        .option("vertices", cora.resolve("vertices.parquet").toString())
        .option("edges", cora.resolve("edges.parquet").toString())
        .option("undirected", "true")
        .option("dedupe", "true")
        .option("partitions", "3")
        .output(out.toString())
        .execute();
  }

  @Test
  void executorsWriteTheSameStoreAsLocalMode() throws Exception {
    Path local = tmp.resolve("local");
    Path cluster = tmp.resolve("cluster");
    SparkSession spark = SparkTestSession.start("PrepareLocalClusterTest-local");
    try {
      prepare(spark, local);
    } finally {
      spark.stop();
    }
    SparkSession cs = LocalClusterSession.start("PrepareLocalClusterTest", 2, 1024);
    try {
      prepare(cs, cluster);
    } finally {
      LocalClusterSession.stop(cs);
    }
    StoreManifest a = StoreManifest.read(local);
    StoreManifest b = StoreManifest.read(cluster);
    assertThat(b.edges).isEqualTo(10556);
    assertThat(b.files).hasSameSizeAs(a.files);
    for (int i = 0; i < a.files.size(); i++) {
      StoreManifest.FileEntry f = a.files.get(i);
      assertThat(b.files.get(i).path).isEqualTo(f.path);
      // Every file, the id map's Parquet included (its footer is canonicalized by
      // ParquetFooters), is byte-identical whichever JVMs wrote it.
      assertThat(b.files.get(i).crc32c).as(f.path).isEqualTo(f.crc32c);
      assertThat(Files.readAllBytes(cluster.resolve(f.path)))
          .as(f.path)
          .isEqualTo(Files.readAllBytes(local.resolve(f.path)));
    }
    SparkSession check = SparkTestSession.start("PrepareLocalClusterTest-check");
    try {
      var la = check.read().parquet(local.resolve("idmap").toString());
      var lb = check.read().parquet(cluster.resolve("idmap").toString());
      assertThat(la.count()).isEqualTo(2708);
      assertThat(la.exceptAll(lb).count()).isZero();
      assertThat(lb.exceptAll(la).count()).isZero();
    } finally {
      check.stop();
    }
    try (GraphStore g = GraphStore.open(cluster)) {
      assertThat(g.verifyChecksums()).isEqualTo(b.files.size());
      assertThat(g.csr().numEdges()).isEqualTo(10556);
    }
  }
}
