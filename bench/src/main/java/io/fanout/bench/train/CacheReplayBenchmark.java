package io.fanout.bench.train;

import io.fanout.features.CachePolicy;
import io.fanout.features.RowCache;
import io.fanout.graph.FeatureTable;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backends;
import io.fanout.train.BatchStream;
import io.fanout.train.PipelinedLoader;
import io.fanout.train.PlanWindow;
import io.fanout.train.SampledEpochs;
import io.fanout.train.TrainBatch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The feature cache's own throughput, without training: how fast the loader's cache thread can
 * serve batches, which bounds a trainer fed through the cache (on a GPU, the step takes far less).
 * One epoch's batches of a {@link BenchGraph} are sampled (node ids only) and kept in memory; then
 * each policy's {@link RowCache}, over a feature file of the generated rows (read through the page
 * cache, warm after the first round), serves them as {@link PipelinedLoader} drives it: plan a
 * window of {@link PipelinedLoader#CACHE_WINDOW} batches, serve half of it, plan again. Serving is
 * {@link RowCache#resolve} (the rows made present in the cache's pages, as for zero-copy reads) or
 * {@link RowCache#gather} (decoded into a buffer). The limit it is measured against, in the same
 * run: the same batches' rows copied from an in-memory array, the work a memory-resident store does
 * instead of the cache.
 */
public final class CacheReplayBenchmark {
  private CacheReplayBenchmark() {}

  /** How the batches are served. */
  public static final List<String> ACCESS = List.of("resolve", "gather");

  /**
   * @param fraction the cache's size, a fraction of the feature bytes
   * @param policies which {@link CachePolicy} names to replay, in order
   * @param rounds replays of every policy, alternating (the first warms the page cache)
   */
  public record Settings(
      int vertices,
      long edges,
      int features,
      int[] fanouts,
      int batchSize,
      int batches,
      int loaderThreads,
      double fraction,
      List<String> policies,
      String access,
      int ioThreads,
      int rounds) {
    public Settings {
      if (!(fraction > 0 && fraction <= 1)) {
        throw new InvalidInputException(
            "--cache-fraction must be in (0, 1] (a fraction of the feature bytes), got "
                + fraction);
      }
      if (policies.isEmpty()) {
        throw new InvalidInputException("--policies names none; expected some of belady,lru,none");
      }
      for (String p : policies) {
        if (!isPolicy(p)) {
          throw new InvalidInputException(
              "--policies: unknown policy '" + p + "'; expected some of belady,lru,none");
        }
      }
      if (!ACCESS.contains(access)) {
        throw new InvalidInputException(
            "--access must be one of " + String.join(", ", ACCESS) + ", got '" + access + "'");
      }
      if (rounds < 1 || ioThreads < 1 || batches < 1) {
        throw new InvalidInputException(
            "--rounds, --io-threads and --batches must be at least 1, got "
                + rounds
                + ", "
                + ioThreads
                + ", "
                + batches);
      }
    }
  }

  private static boolean isPolicy(String name) {
    for (CachePolicy p : CachePolicy.values()) {
      if (p.id().equals(name)) {
        return true;
      }
    }
    return false;
  }

  public static Map<String, Object> run(Settings s) {
    long t0 = System.nanoTime();
    int n = s.vertices();
    int dim = s.features();
    BenchGraph bg = BenchGraph.generate(n, s.edges(), dim);
    List<int[]> batches = sample(bg, s);
    long accesses = 0;
    int maxRows = 0;
    for (int[] b : batches) {
      accesses += b.length;
      maxRows = Math.max(maxRows, b.length);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("vertices", n);
    out.put("edges", bg.csr().numEdges());
    out.put("features", dim);
    out.put("batches", batches.size());
    out.put("row_accesses", accesses);
    out.put("mean_rows_per_batch", accesses / Math.max(1, batches.size()));
    out.put("cache_fraction", s.fraction());
    out.put("access", s.access());
    out.put("io_threads", s.ioThreads());
    out.put("generate_and_sample_seconds", (System.nanoTime() - t0) / 1e9);
    if (accesses == 0) {
      return out;
    }
    float[] buf = new float[maxRows * dim];
    int[] slots = new int[maxRows];
    double memory = Double.MAX_VALUE;
    Map<String, Double> best = new LinkedHashMap<>();
    for (int round = 0; round < s.rounds(); round++) {
      memory = Math.min(memory, memoryGatherSeconds(bg.featureTable(), batches, buf));
      for (String name : s.policies()) {
        CachePolicy policy = CachePolicy.parse(name);
        try (CachedRows rows =
            CachedRows.open(
                Backends.select("cpu", 1),
                bg.features(),
                n,
                dim,
                s.fraction(),
                s.ioThreads(),
                policy)) {
          RowCache cache = rows.cache();
          long[] nanos = replay(cache, batches, s.access().equals("resolve"), buf, slots);
          double seconds = (nanos[0] + nanos[1]) / 1e9;
          if (seconds < best.getOrDefault(name, Double.MAX_VALUE)) {
            best.put(name, seconds);
            out.put(name + "_plan_ns_per_access", nanos[0] / (double) accesses);
            out.put(name + "_serve_ns_per_access", nanos[1] / (double) accesses);
            out.put(name + "_seconds_per_batch", seconds / batches.size());
          }
          out.put(name + "_hits", cache.hits());
          out.put(name + "_misses", cache.misses());
          out.put(name + "_rows_read", cache.files().rowsRead());
          out.put(name + "_read_calls", cache.files().reads());
          out.put(name + "_bytes_transferred", cache.files().bytesTransferred());
        }
      }
    }
    out.put("memory_gather_ns_per_access", memory * 1e9 / accesses);
    out.put("memory_gather_seconds_per_batch", memory / batches.size());
    for (Map.Entry<String, Double> e : best.entrySet()) {
      out.put(e.getKey() + "_over_memory_gather", e.getValue() / memory);
    }
    return out;
  }

  /** One epoch's batches, node ids only, in the order a loader serves them. */
  private static List<int[]> sample(BenchGraph bg, Settings s) {
    return sample(bg, s.batches(), s.batchSize(), s.fanouts(), s.loaderThreads(), 0);
  }

  /**
   * As above: epoch {@code epoch}'s {@code count} batches of {@code batchSize} seeds spread over
   * the graph (each epoch shuffles the seeds and samples the neighbors anew).
   */
  static List<int[]> sample(
      BenchGraph bg, int count, int batchSize, int[] fanouts, int loaderThreads, int epoch) {
    int[] seeds = bg.spreadSeeds(count * batchSize);
    SampledEpochs data =
        TrainBenchmark.sampledEpochs(bg, seeds, fanouts, batchSize, loaderThreads).gather(false);
    List<int[]> batches = new ArrayList<>();
    try (BatchStream stream = data.open(epoch)) {
      TrainBatch b;
      while ((b = stream.next()) != null) {
        batches.add(b.batch().nodes().clone());
        stream.recycle(b);
      }
    }
    return batches;
  }

  /**
   * Serves every batch through {@code cache} in windows, as the loader does; returns the
   * nanoseconds spent planning and serving.
   */
  private static long[] replay(
      RowCache cache, List<int[]> batches, boolean resolve, float[] buf, int[] slots) {
    PlanWindow window = PlanWindow.of(cache);
    int[][] ids = new int[batches.size()][];
    int[] counts = new int[batches.size()];
    long plan = 0;
    long serve = 0;
    try {
      for (int head = 0; head < batches.size(); ) {
        int size = 0;
        long rows = 0;
        while (head + size < batches.size() && window.wantsMore(size, rows)) {
          ids[size] = batches.get(head + size);
          counts[size] = ids[size].length;
          rows += counts[size++];
        }
        long t0 = System.nanoTime();
        cache.plan(ids, counts, size);
        long t1 = System.nanoTime();
        int step = PlanWindow.servedPerPlan(head + size < batches.size(), size);
        for (int i = 0; i < step; i++) {
          if (resolve) {
            cache.fence().release(cache.resolve(ids[i], 0, counts[i], slots));
          } else {
            cache.gather(ids[i], 0, counts[i], buf, 0);
          }
        }
        plan += t1 - t0;
        serve += System.nanoTime() - t1;
        head += step;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while replaying batches", e);
    }
    return new long[] {plan, serve};
  }

  /** Seconds to copy every batch's rows out of the in-memory {@code features}. */
  private static double memoryGatherSeconds(
      FeatureTable features, List<int[]> batches, float[] buf) {
    long t0 = System.nanoTime();
    for (int[] b : batches) {
      features.gather(b, 0, b.length, buf, 0);
    }
    return (System.nanoTime() - t0) / 1e9;
  }
}
