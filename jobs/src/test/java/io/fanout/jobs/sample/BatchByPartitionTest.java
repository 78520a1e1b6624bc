package io.fanout.jobs.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun;
import io.fanout.graph.GraphStore;
import io.fanout.sample.MiniBatch;
import io.fanout.shard.BatchCodec;
import io.fanout.shard.ShardFileReader;
import io.fanout.spark.Fanout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sample --batch-by-partition} on cora in 4 multilevel partitions: both modes write the same
 * shards, each batch's seeds come from one partition (but at most 3 per epoch), and partitioned
 * mode, answering a batch's own partition in place, shuffles less than without the option.
 */
@Tag("slow")
class BatchByPartitionTest {
  static SparkSession spark;
  @TempDir static Path tmp;
  static Path store;
  static final String[] OPTS = {
    "--split", "all", "--batch-size", "64", "--fanouts", "10,5", "--epochs", "2", "--seed", "7"
  };

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("BatchByPartitionTest");
    Path ds = SparkTestSession.dataset("cora");
    store = tmp.resolve("cora-multilevel.store");
    Fanout.get(spark)
        .prepare()
        .option("vertices", ds.resolve("vertices.parquet").toString())
        .option("edges", ds.resolve("edges.parquet").toString())
        .option("undirected", "true")
        .option("dedupe", "true")
        .option("partitions", "4")
        .option("partitioner", "multilevel")
        .output(store.toString())
        .execute();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void modesAgreeAndBatchesStayInOnePartition() throws Exception {
    Path a = tmp.resolve("replicated");
    Path b = tmp.resolve("partitioned");
    SampleFixtures.sampleOk(store, a, concat("--batch-by-partition", "true"));
    SampleFixtures.sampleOk(
        store, b, concat("--batch-by-partition", "true", "--mode", "partitioned"));
    Map<String, byte[]> fa = SameShards.assertByteIdentical(a, b);
    assertThat(fa).isNotEmpty();

    StoreManifest sm = StoreManifest.read(store);
    long[] firsts = new long[sm.partitions + 1];
    for (int p = 0; p < sm.partitions; p++) {
      firsts[p + 1] = firsts[p] + sm.partitionTable.get(p).numVertices;
    }
    Map<Integer, Set<Integer>> seedsByEpoch = new HashMap<>();
    Map<Integer, Integer> mixedByEpoch = new HashMap<>();
    int batches = 0;
    try (GraphStore g = GraphStore.open(store)) {
      for (String k : fa.keySet()) {
        try (ShardFileReader rd = new ShardFileReader(a.resolve(k))) {
          while (rd.hasNext()) {
            MiniBatch mb = BatchCodec.decode(rd.next());
            batches++;
            Set<Integer> parts = new HashSet<>();
            Set<Integer> seeds = seedsByEpoch.computeIfAbsent(mb.epoch(), e -> new HashSet<>());
            for (int i = 0; i < mb.numSeeds(); i++) {
              int v = mb.nodes()[i];
              assertThat(seeds.add(v)).as("seed %d twice", v).isTrue();
              parts.add(partition(firsts, v));
            }
            if (parts.size() > 1) {
              mixedByEpoch.merge(mb.epoch(), 1, Integer::sum);
            }
          }
        }
      }
      assertThat(seedsByEpoch).hasSize(2);
      for (Set<Integer> s : seedsByEpoch.values()) {
        assertThat(s).hasSize(g.vertices().numVertices());
      }
    }
    assertThat(batches).isEqualTo(2 * 43); // 2708 seeds in batches of 64
    for (int mixed : mixedByEpoch.values()) {
      assertThat(mixed).isLessThanOrEqualTo(3);
    }
  }

  @Test
  void partitionedModeShufflesLessWhenBatchesStayInOnePartition() {
    CliRun.Result plain =
        SampleFixtures.sampleOk(store, tmp.resolve("plain"), concat("--mode", "partitioned"));
    CliRun.Result local =
        SampleFixtures.sampleOk(
            store,
            tmp.resolve("local"),
            concat("--mode", "partitioned", "--batch-by-partition", "true"));
    long without = plain.json().get("shuffle_bytes_per_epoch").asLong();
    long with = local.json().get("shuffle_bytes_per_epoch").asLong();
    System.out.printf(
        "cora, 4 multilevel partitions: shuffle bytes per epoch %d, with --batch-by-partition %d"
            + " (%.2fx)%n",
        without, with, (double) with / without);
    assertThat(with).isLessThan(without);
  }

  @Test
  void linkTasksAreRefused() {
    CliRun.Result r =
        SampleFixtures.sample(
            store,
            tmp.resolve("link"),
            "--task",
            "link",
            "--batch-by-partition",
            "true",
            "--fanouts",
            "5");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--batch-by-partition").contains("--task link");
    assertThat(tmp.resolve("link")).doesNotExist();
  }

  private static int partition(long[] firsts, int v) {
    int p = 0;
    while (firsts[p + 1] <= v) {
      p++;
    }
    return p;
  }

  private static String[] concat(String... more) {
    List<String> all = new java.util.ArrayList<>(List.of(OPTS));
    all.addAll(List.of(more));
    return all.toArray(new String[0]);
  }
}
