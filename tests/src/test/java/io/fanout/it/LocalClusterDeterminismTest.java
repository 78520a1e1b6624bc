package io.fanout.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun;
import io.fanout.graph.GraphStore;
import io.fanout.spark.Fanout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Part files written by two executor JVMs are the same bytes as on {@code local[2]}: {@code
 * prepare}'s store (CSR, features, nodes and the id map's Parquet), whether the csr tasks look the
 * endpoints up in the id rank tables (the edges shuffled as blocks) or the endpoint joins shuffle
 * the id map, and {@code sample}'s shards in both modes.
 */
@Tag("cluster")
class LocalClusterDeterminismTest {
  @TempDir Path tmp;

  private static void prepare(SparkSession spark, Path out, String idLookup) {
    Path cora = SparkTestSession.dataset("cora");
    Fanout.get(spark)
        .prepare()
        .option("vertices", cora.resolve("vertices.parquet").toString())
        .option("edges", cora.resolve("edges.parquet").toString())
        .option("undirected", "true")
        .option("dedupe", "true")
        .option("partitions", "3")
        .option("id-lookup", idLookup)
        .output(out.toString())
        .execute();
  }

  @Test
  void executorsWriteTheSameStoreAsLocalMode() throws Exception {
    Path local = tmp.resolve("local");
    Path cluster = tmp.resolve("cluster");
    Path clusterJoins = tmp.resolve("cluster-joins");
    Path shardsLocal = tmp.resolve("shards-local");
    SparkSession spark = SparkTestSession.start("LocalClusterDeterminismTest-local");
    try {
      prepare(spark, local, "auto");
      sample(local, shardsLocal, "replicated");
    } finally {
      spark.stop();
    }
    Path shardsCluster = tmp.resolve("shards-cluster");
    Path shardsPartitioned = tmp.resolve("shards-cluster-partitioned");
    SparkSession cs = LocalClusterSession.start("LocalClusterDeterminismTest", 2, 1024);
    try {
      // task looks cora's endpoints up in the csr tasks, the edge blocks crossing between the two
      // executor JVMs; the joins run as shuffled hash joins, the path of id maps too large to
      // broadcast; both must write the bytes of local mode
      prepare(cs, cluster, "task");
      cs.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
      prepare(cs, clusterJoins, "sql");
      cs.conf().unset("spark.sql.autoBroadcastJoinThreshold");
      sample(local, shardsCluster, "replicated");
      sample(local, shardsPartitioned, "partitioned");
    } finally {
      LocalClusterSession.stop(cs);
    }
    SparkSession check = SparkTestSession.start("LocalClusterDeterminismTest-check");
    try {
      assertSameIdMap(check, local, cluster);
      assertSameIdMap(check, local, clusterJoins);
    } finally {
      check.stop();
    }
    assertSameStore(local, cluster);
    assertSameStore(local, clusterJoins);
    assertSameShards(shardsLocal, shardsCluster);
    assertSameShards(shardsLocal, shardsPartitioned);
  }

  /** The store at {@code cluster} is byte for byte the one at {@code local}, and sound. */
  private static void assertSameStore(Path local, Path cluster) throws Exception {
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
      assertThat(
              Files.readAllBytes(
                  io.fanout.store.StoreManifest.read(cluster).dataRoot(cluster).resolve(f.path)))
          .as(f.path)
          .isEqualTo(
              Files.readAllBytes(
                  io.fanout.store.StoreManifest.read(local).dataRoot(local).resolve(f.path)));
    }
    try (GraphStore g = GraphStore.open(cluster)) {
      assertThat(g.verifyChecksums()).isEqualTo(b.files.size());
      assertThat(g.csr().numEdges()).isEqualTo(10556);
    }
  }

  /** The id map at {@code cluster} holds the rows of the one at {@code local}, read by Spark. */
  private static void assertSameIdMap(SparkSession spark, Path local, Path cluster) {
    var la =
        spark.read().parquet(StoreManifest.read(local).dataRoot(local).resolve("idmap").toString());
    var lb =
        spark
            .read()
            .parquet(StoreManifest.read(cluster).dataRoot(cluster).resolve("idmap").toString());
    assertThat(la.count()).isEqualTo(2708);
    assertThat(la.exceptAll(lb).count()).isZero();
    assertThat(lb.exceptAll(la).count()).isZero();
  }

  /** {@code bin/fanout sample} of the train split, 2 epochs, through the active session. */
  private static void sample(Path store, Path out, String mode) {
    CliRun.Result r =
        CliRun.cli(
            "sample",
            "--graph",
            store.toString(),
            "--output",
            out.toString(),
            "--fanouts",
            "10,5",
            "--batch-size",
            "32",
            "--epochs",
            "2",
            "--batches-per-shard",
            "2",
            "--features",
            "f16",
            "--mode",
            mode);
    assertThat(r.code()).as(r.err()).isZero();
  }

  private static void assertSameShards(Path a, Path b) throws Exception {
    List<Path> partsA = parts(a);
    assertThat(partsA).hasSizeGreaterThan(4);
    assertThat(parts(b)).hasSameSizeAs(partsA);
    for (Path p : partsA) {
      assertThat(Files.readAllBytes(b.resolve(a.relativize(p))))
          .as(b + ": " + a.relativize(p))
          .isEqualTo(Files.readAllBytes(p));
    }
  }

  private static List<Path> parts(Path shards) throws Exception {
    try (Stream<Path> s = Files.walk(shards)) {
      return s.filter(p -> p.toString().endsWith(".parquet")).sorted().collect(Collectors.toList());
    }
  }
}
