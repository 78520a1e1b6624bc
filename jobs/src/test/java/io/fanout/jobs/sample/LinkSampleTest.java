package io.fanout.jobs.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.GraphStore;
import io.fanout.graph.HeldOutEdges;
import io.fanout.sample.LinkPairs;
import io.fanout.sample.MiniBatch;
import io.fanout.sample.PairSet;
import io.fanout.shard.BatchCodec;
import io.fanout.shard.ShardFileReader;
import io.fanout.shard.ShardManifest;
import io.fanout.spark.Fanout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sample --task link} on cora prepared with {@code --task link}: real shards, no leakage,
 * and the partitioned mode's shards byte-identical to the replicated mode's.
 */
@Tag("slow")
class LinkSampleTest {
  static SparkSession spark;
  @TempDir static Path tmp;
  static Path store;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("LinkSampleTest");
    Path ds = SparkTestSession.dataset("cora");
    store = tmp.resolve("cora-link");
    Fanout.get(spark)
        .prepare()
        .option("vertices", ds.resolve("vertices.parquet").toString())
        .option("edges", ds.resolve("edges.parquet").toString())
        .option("undirected", "true")
        .option("dedupe", "true")
        .option("self-loops", "drop")
        .option("task", "link")
        .option("partitions", "2")
        .output(store.toString())
        .execute();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void coraShardsHoldEveryTrainingPairOnceAndNoPositiveEdgeInItsBlocks() throws Exception {
    Path out = tmp.resolve("shards");
    SampleFixtures.sampleOk(
        store,
        out,
        "--task",
        "link",
        "--batch-size",
        "512",
        "--num-negatives",
        "2",
        "--negatives",
        "degree",
        "--fanouts",
        "10,5",
        "--batches-per-shard",
        "3");
    ShardManifest m = ShardManifest.read(out);
    assertThat(m.options).containsEntry("task", "link").containsEntry("negatives", "degree");
    checkPairsAndNoLeakage(out, 2);
  }

  /**
   * Every training pair is a positive exactly once per epoch, {@code negatives} negatives each, and
   * no batch's blocks hold one of its own positive edges.
   */
  static void checkPairsAndNoLeakage(Path out, int negatives) throws Exception {
    ShardManifest m = ShardManifest.read(out);
    try (GraphStore g = GraphStore.open(store)) {
      StoreManifest sm = g.manifest();
      CsrGraph csr = g.csr();
      Set<Long> heldOut = new HashSet<>();
      for (String split : new String[] {"val", "test"}) {
        HeldOutEdges h = HeldOutEdges.read(g, split);
        for (int i = 0; i < h.size(); i++) {
          heldOut.add(key(h.src[i], h.dst[i]));
        }
      }
      Set<Long> positives = new HashSet<>();
      long blockEdges = 0;
      for (ShardManifest.Part f : m.files) {
        if (f.epoch != 0) {
          continue;
        }
        try (ShardFileReader rd = new ShardFileReader(m.dataRoot(out).resolve(f.path))) {
          while (rd.hasNext()) {
            MiniBatch b = BatchCodec.decode(rd.next());
            LinkPairs p = b.pairs();
            PairSet own = new PairSet();
            int pos = 0;
            for (int i = 0; i < p.size(); i++) {
              int s = b.nodes()[p.src()[i]];
              int d = b.nodes()[p.dst()[i]];
              if (p.label()[i] == 1) {
                pos++;
                own.add(s, d);
                assertThat(positives.add(key(s, d))).as("positive %d-%d twice", s, d).isTrue();
                assertThat(heldOut).doesNotContain(key(s, d));
                assertThat(hasEdge(csr, s, d) && hasEdge(csr, d, s)).isTrue();
              }
            }
            assertThat(p.size()).isEqualTo((1 + negatives) * pos);
            for (int h = 1; h <= b.layers(); h++) {
              int[] ptr = b.indptr(h);
              int[] ix = b.indices(h);
              for (int i = 0; i + 1 < ptr.length; i++) {
                for (int e = ptr[i]; e < ptr[i + 1]; e++) {
                  assertThat(own.contains(b.nodes()[i], b.nodes()[ix[e]])).isFalse();
                  blockEdges++;
                }
              }
            }
          }
        }
      }
      assertThat((long) positives.size()).isEqualTo(sm.edgeSplit.trainPairs);
      assertThat(m.totals.seeds).isEqualTo(sm.edgeSplit.trainPairs * m.epochs);
      assertThat(blockEdges).isGreaterThan(20_000);
    }
  }

  /**
   * Partitioned mode (each task maps one of the store's 2 partitions) writes the replicated mode's
   * bytes: the seeds' order, the pairs and negatives (degree: in-degrees each executor reads from
   * the partitions; in-batch), the blocks without the positive edges, the seeds' labels and inlined
   * features.
   */
  @Test
  void partitionedLinkShardsAreByteIdenticalToReplicated() throws Exception {
    String[][] requests = {
      {"--negatives", "degree", "--num-negatives", "2", "--epochs", "2"},
      {"--negatives", "in-batch", "--num-negatives", "1", "--features", "f16"},
    };
    int r = 0;
    for (String[] req : requests) {
      String[] opts = new String[req.length + 8];
      System.arraycopy(req, 0, opts, 0, req.length);
      System.arraycopy(
          new String[] {
            "--task", "link", "--batch-size", "512", "--fanouts", "10,5", "--batches-per-shard", "3"
          },
          0,
          opts,
          req.length,
          8);
      Path a = tmp.resolve("link-replicated-" + r);
      Path c = tmp.resolve("link-partitioned-" + r++);
      SampleFixtures.sampleOk(store, a, opts);
      String[] part = java.util.Arrays.copyOf(opts, opts.length + 2);
      part[opts.length] = "--mode";
      part[opts.length + 1] = "partitioned";
      SampleFixtures.sampleOk(store, c, part);
      SameShards.assertByteIdentical(a, c);
      assertThat(ShardManifest.read(c).mode).isEqualTo("partitioned");
      checkPairsAndNoLeakage(c, Integer.parseInt(req[3]));
    }
  }

  static long key(int a, int b) {
    return ((long) Math.min(a, b) << 32) | Math.max(a, b);
  }

  static boolean hasEdge(CsrGraph g, int u, int v) {
    for (long p = g.rowStart(v); p < g.rowEnd(v); p++) {
      if (g.neighbor(p) == u) {
        return true;
      }
    }
    return false;
  }

  /** A store without an edge split: {@code SampleJobTest#linkSamplingNeedsAnEdgeSplit}. */
  @Test
  void badLinkRequestsExitTwoWithOneLine() {
    CliRun.Result mode =
        SampleFixtures.sample(store, tmp.resolve("x2"), "--task", "link", "--negatives", "hard");
    assertThat(mode.code()).isEqualTo(2);
    assertThat(mode.err()).contains("negatives").contains("uniform|degree|in-batch");
    assertThat(mode.err().strip().lines()).hasSize(1);
    assertThat(tmp.resolve("x2")).doesNotExist();
  }
}
