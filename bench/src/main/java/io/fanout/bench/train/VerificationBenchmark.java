package io.fanout.bench.train;

import io.fanout.bench.store.InMemoryGraphStores;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.GraphStore;
import io.fanout.graph.VertexTable;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.sample.MiniBatch;
import io.fanout.sample.NeighborSampler;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardManifest;
import io.fanout.shard.ShardOutput;
import io.fanout.shard.ShardPartWriter;
import io.fanout.shard.ShardPlan;
import io.fanout.store.Checksums;
import io.fanout.store.FileTrees;
import io.fanout.store.StoreManifest;
import io.fanout.tensor.Backends;
import io.fanout.train.EpochData;
import io.fanout.train.EpochStats;
import io.fanout.train.GradientReducer;
import io.fanout.train.ShardSet;
import io.fanout.train.TrainOptions;
import io.fanout.train.Trainer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * What verifying costs {@code train}, measured in {@link TrainBenchmark}'s run: the generated graph
 * is written as a graph store and one epoch of its batches as node-id shards (zstd, as {@code
 * sample} writes them) to a temporary directory; then {@link Trainer#fit} trains on them as {@code
 * train} does (features gathered from the mapped store), one warm-up epoch and then epochs that
 * alternately check every shard part ({@link ShardSet#epochData} with verify) and do not, in wall
 * time and in process CPU time (less sensitive to other load on the machine). Also times the
 * checksum pass over an epoch's parts alone, one parallel check of the store's files ({@link
 * GraphStore#verifyChecksums}: what a process pays once) and a repeated one (the memo).
 */
final class VerificationBenchmark {
  private VerificationBenchmark() {}

  /** Vertices per store partition, as {@code prepare --partitions 0} cuts them. */
  static final int VERTICES_PER_PARTITION = 500_000;

  /**
   * @param features row-major {@code vertices x dim}
   * @param seeds the benchmark's seeds, cut into batches of {@code s.batchSize()}
   * @param rounds pairs of epochs, one without and one with verification
   */
  static Map<String, Object> run(
      CsrGraph g,
      float[] features,
      int dim,
      VertexTable vt,
      int classes,
      int[] seeds,
      ModelConfig cfg,
      TrainBenchmark.Settings s,
      int rounds) {
    Path dir;
    try {
      dir = Files.createTempDirectory("fanout-bench-verify");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    }
    try {
      Path storeDir = dir.resolve("store");
      StoreManifest sm = writeStore(storeDir, g, features, dim, vt, classes);
      Path shardDir = dir.resolve("shards");
      ShardManifest shm =
          writeShards(shardDir, g, vt, seeds, s.batchSize(), s.batchesPerShard(), s.fanouts());
      Map<String, Object> out = new LinkedHashMap<>();
      long storeBytes = sm.fileBytes();
      ShardSet shards = ShardSet.open(shardDir);
      List<Path> parts = shards.files(0);
      try (GraphStore store = GraphStore.open(storeDir)) {
        long t0 = System.nanoTime();
        store.verifyChecksums();
        double storeSeconds = (System.nanoTime() - t0) / 1e9;
        store.verifyChecksumsOnce();
        t0 = System.nanoTime();
        int reread = store.verifyChecksumsOnce();
        double againSeconds = (System.nanoTime() - t0) / 1e9;
        t0 = System.nanoTime();
        for (Path p : parts) {
          Checksums.crc32c(p);
        }
        double shardCrcSeconds = (System.nanoTime() - t0) / 1e9;

        double[] epoch = alternateEpochs(store, shards, cfg, s, rounds, dir);
        out.put("verify_store_files", sm.files.size());
        out.put("verify_store_bytes", storeBytes);
        out.put("verify_store_seconds", storeSeconds);
        out.put("verify_store_again_files_read", reread);
        out.put("verify_store_again_seconds", againSeconds);
        out.put("verify_shard_parts_per_epoch", parts.size());
        out.put("verify_shard_bytes_per_epoch", shm.totals.bytes);
        out.put("verify_shard_crc_seconds_per_epoch", shardCrcSeconds);
        out.put("epoch_batches", shm.batchesPerEpoch);
        out.put("epoch_seconds_unverified", epoch[0]);
        out.put("epoch_seconds_verified", epoch[1]);
        out.put("verify_overhead_percent", 100 * (epoch[1] / epoch[0] - 1));
        out.put("epoch_cpu_seconds_unverified", epoch[2]);
        out.put("epoch_cpu_seconds_verified", epoch[3]);
        out.put("verify_cpu_overhead_percent", 100 * (epoch[3] / epoch[2] - 1));
        out.put("verify_shard_crc_percent_of_epoch", 100 * shardCrcSeconds / epoch[0]);
        out.put("verify_store_percent_of_epoch", 100 * storeSeconds / epoch[0]);
      }
      return out;
    } finally {
      try {
        FileTrees.deleteRecursively(dir);
      } catch (IOException e) {
        System.err.println("bench-train: could not delete " + dir + ": " + e);
      }
    }
  }

  /**
   * Trains a warm-up epoch, then {@code rounds} pairs of one-epoch runs, one reading the shards
   * unchecked and one verifying them, each its own {@link Trainer#fit} (so each pays for opening
   * its first part, and no verification work spills into the other's epoch). Returns the best
   * (least) wall seconds and process CPU seconds of an epoch over the rounds, unverified then
   * verified: other load on the machine only ever adds time.
   */
  private static double[] alternateEpochs(
      GraphStore store,
      ShardSet shards,
      ModelConfig cfg,
      TrainBenchmark.Settings s,
      int rounds,
      Path dir) {
    EpochData[] data = new EpochData[2];
    for (int verify = 0; verify < 2; verify++) {
      data[verify] =
          shards.epochData(
              store.features(),
              cfg.inDim(),
              cfg.featureNorm(),
              s.loaderThreads(),
              s.prefetch(),
              verify == 1);
    }
    double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    for (int run = 0; run <= 2 * rounds; run++) {
      int verify = run == 0 ? 0 : (run - 1) % 2;
      GnnModel model = new GnnModel(cfg, Backends.select());
      Trainer trainer =
          new Trainer(
              model,
              new TrainOptions(1, 0.003f, 0f, LrSchedule.CONSTANT, 1),
              GradientReducer.LOCAL);
      long cpu0 = processCpuNanos();
      List<EpochStats> stats =
          trainer.fit(data[verify], null, dir.resolve("model-" + run), false, Map.of(), null, 0);
      long cpu = processCpuNanos() - cpu0;
      if (run > 0) {
        best[verify] = Math.min(best[verify], stats.get(0).seconds());
        best[2 + verify] = Math.min(best[2 + verify], cpu / 1e9);
      }
    }
    return best;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Writes the generated graph as a graph store of f32 features, as {@code prepare} would. */
  static StoreManifest writeStore(
      Path store, CsrGraph g, float[] features, int dim, VertexTable vt, int classes) {
    int n = g.numVertices();
    int partitions = Math.max(1, (n + VERTICES_PER_PARTITION - 1) / VERTICES_PER_PARTITION);
    return InMemoryGraphStores.write(
        store, g, vt, features, dim, null, partitions, classes, "bench-train");
  }

  /** One epoch of the benchmark's batches as node-id shards, as {@code sample} would write it. */
  static ShardManifest writeShards(
      Path dir,
      CsrGraph g,
      VertexTable vt,
      int[] seeds,
      int batchSize,
      int batchesPerShard,
      int[] fanouts) {
    ShardPlan plan = new ShardPlan(seeds.length, batchSize, 1, batchesPerShard);
    NeighborSampler sampler = new NeighborSampler(g, vt, fanouts, 1);
    io.fanout.store.OutputCommit.Run run = ShardOutput.COMMIT.begin(dir);
    Path staging = run.dir();
    ShardManifest m = new ShardManifest();
    for (int p = 0; p < plan.partsPerEpoch(); p++) {
      String rel = ShardPlan.partPath(0, p);
      Path file = staging.resolve(rel);
      try {
        Files.createDirectories(file.getParent());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      ShardPartWriter.Written w =
          ShardPartWriter.write(
              file,
              batches(sampler.newWorker(), seeds, plan, p),
              null,
              FeatureEncoding.NONE,
              CompressionCodecName.ZSTD,
              Map.of());
      ShardManifest.Part part = new ShardManifest.Part();
      part.path = rel;
      part.part = p;
      part.firstBatch = plan.firstBatch(p);
      part.endBatch = plan.endBatch(p);
      part.seeds = w.seeds();
      part.nodes = w.nodes();
      part.edges = w.edges();
      part.bytes = w.bytes();
      part.crc32c = w.crc32c();
      m.files.add(part);
      m.totals.batches += w.rows();
      m.totals.seeds += w.seeds();
      m.totals.bytes += w.bytes();
    }
    m.requestFingerprint = "bench-train";
    m.split = "train";
    m.seedsPerEpoch = seeds.length;
    m.batchSize = batchSize;
    m.fanouts = fanouts.clone();
    m.epochs = 1;
    m.seed = 1;
    m.features = FeatureEncoding.NONE.id();
    m.compression = "zstd";
    m.batchesPerShard = plan.batchesPerShard();
    m.batchesPerEpoch = plan.batchesPerEpoch();
    m.partsPerEpoch = plan.partsPerEpoch();
    ShardOutput.COMMIT.publish(run, m, true);
    return m;
  }

  private static Iterator<MiniBatch> batches(
      NeighborSampler.Worker w, int[] seeds, ShardPlan plan, int part) {
    return new Iterator<>() {
      int b = plan.firstBatch(part);

      @Override
      public boolean hasNext() {
        return b < plan.endBatch(part);
      }

      @Override
      public MiniBatch next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        int from = b * plan.batchSize();
        MiniBatch mb = w.sample(0, b, seeds, from, plan.seedCount(b));
        b++;
        return mb;
      }
    };
  }
}
