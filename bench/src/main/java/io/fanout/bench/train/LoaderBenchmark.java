package io.fanout.bench.train;

import io.fanout.train.BatchStream;
import io.fanout.train.SampledEpochs;
import io.fanout.train.TrainBatch;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The loader alone, without a trainer: {@code rounds} epochs of {@code batches} batches of the
 * generated graph of {@link TrainBenchmark}, sampled on the loader threads (and their features
 * gathered on them with {@code --feature-access gather}; sampled only with {@code zero-copy}) and
 * drained as fast as they come, in order. Its milliseconds per batch are the most batches a second
 * the loader can feed a trainer with these settings.
 */
public final class LoaderBenchmark {
  private LoaderBenchmark() {}

  public static Map<String, Object> run(TrainBenchmark.Settings s, int rounds) {
    return run(s, rounds, 1);
  }

  /**
   * As {@link #run(TrainBenchmark.Settings, int)} with parts of {@code batchesPerPart} batches,
   * each sampled in order by one thread as a shard file of that many batches is decoded.
   */
  public static Map<String, Object> run(TrainBenchmark.Settings s, int rounds, int batchesPerPart) {
    if (rounds < 1) {
      throw new io.fanout.store.InvalidInputException(
          "--loader-only expects a number of rounds of at least 1, got " + rounds);
    }
    long t0 = System.nanoTime();
    BenchGraph bg = BenchGraph.generate(s.vertices(), s.edges(), s.features());
    double genSeconds = (System.nanoTime() - t0) / 1e9;
    int[] seeds = bg.spreadSeeds(s.batches() * s.batchSize());
    SampledEpochs data =
        TrainBenchmark.sampledEpochs(bg, seeds, s)
            .gather(!s.zeroCopy())
            .batchesPerPart(batchesPerPart);
    double[] ms = new double[rounds];
    long nodes = 0;
    int batches = 0;
    for (int r = 0; r < rounds; r++) {
      long start = System.nanoTime();
      int n = 0;
      try (BatchStream stream = data.open(r)) {
        TrainBatch b;
        while ((b = stream.next()) != null) {
          nodes += b.batch().nodes().length;
          n++;
          stream.recycle(b);
        }
      }
      ms[r] = (System.nanoTime() - start) / 1e6 / Math.max(1, n);
      batches += n;
    }
    double[] sorted = ms.clone();
    Arrays.sort(sorted);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("vertices", s.vertices());
    out.put("edges", bg.csr().numEdges());
    out.put("fanouts", Arrays.toString(s.fanouts()));
    out.put("batch_size", s.batchSize());
    out.put("batches", s.batches());
    out.put("loader_threads", s.loaderThreads());
    out.put("prefetch", s.prefetch());
    out.put("batches_per_part", batchesPerPart);
    out.put("feature_access", s.featureAccess().id());
    out.put("generate_seconds", genSeconds);
    out.put("ms_per_batch", sorted[rounds / 2]);
    out.put("ms_per_batch_rounds", Arrays.toString(ms));
    out.put("mean_nodes_per_batch", nodes / Math.max(1, batches));
    return out;
  }
}
