package io.fanout.bench.train;

import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backend;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.KernelFeatureRows;
import io.fanout.train.BatchStream;
import io.fanout.train.EpochStats;
import io.fanout.train.GradientReducer;
import io.fanout.train.HotReuse;
import io.fanout.train.SampledEpochs;
import io.fanout.train.TrainOptions;
import io.fanout.train.TrainProgress;
import io.fanout.train.Trainer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Training steps with and without reuse of hot vertices' bottom-layer embeddings ({@link
 * HotReuse}), on the generated graph of {@link TrainBenchmark} and the same batches, in one run:
 * one untimed epoch of each, then {@code rounds} timed epochs of each, alternating. The reuse
 * trainer's untimed epoch samples its batches in full and prunes them (its counts of what reuse
 * avoids are reported); its timed ones sample without the hot rows' subtrees. A step's time is the
 * epoch's wall time less the time it waited for the loader (the same sampler feeds both); whole
 * epochs, the wait included, are reported too ({@code speedup_epoch}). An overlapped refresh worker
 * runs beside the steps, so the speedup is also given with its compute time charged to the steps as
 * if it ran in series; an inline refresh is already in the steps. With zero-copy feature access
 * (CUDA) both trainers read the rows from one pinned copy, and the reuse trainer's loader prunes
 * each batch so the kernel reads only the pruned block's rows.
 */
public final class HotReuseBenchmark {
  private HotReuseBenchmark() {}

  public static Map<String, Object> run(
      TrainBenchmark.Settings asked, Backend be, HotReuse reuse, int rounds) {
    TrainBenchmark.Settings s = asked.resolvedFor(be);
    if (!reuse.enabled()) {
      throw new IllegalArgumentException("the reuse benchmark needs reuse-hot > 0");
    }
    if (rounds < 1) {
      throw new IllegalArgumentException("reuse-rounds must be at least 1, got " + rounds);
    }
    if (s.featureCacheFraction() > 0) {
      throw new InvalidInputException(
          "--reuse-hot measures reuse with the rows in memory; drop --feature-cache-fraction");
    }
    BenchGraph bg = BenchGraph.generate(s.vertices(), s.edges(), s.features());
    int[] seeds = bg.spreadSeeds((s.batches() + s.warmup()) * s.batchSize());
    ModelConfig cfg = bg.sageConfig(s.hidden(), s.fanouts().length, 0.5f);
    SampledEpochs data = TrainBenchmark.sampledEpochs(bg, seeds, s);
    TrainOptions opts = new TrainOptions(1, 0.003f, 0f, LrSchedule.CONSTANT, 1);
    KernelFeatureRows rows = TrainBenchmark.inPlaceRows(s, be, bg.features());
    data.gather(rows == null);
    try (KernelFeatureRows closeRows = rows;
        Trainer plain = new Trainer(new GnnModel(cfg, be), opts, GradientReducer.LOCAL);
        Trainer hot = new Trainer(new GnnModel(cfg, be), opts, GradientReducer.LOCAL)) {
      plain.model().init(1);
      hot.model().init(1);
      plain.readFeaturesFrom(rows);
      hot.readFeaturesFrom(rows);
      hot.reuseHot(reuse, s.vertices(), v -> bg.csr().degree(v));
      long t0 = System.nanoTime();
      hot.prepareReuse(data);
      double hotSetSeconds = (System.nanoTime() - t0) / 1e9;
      double[] plainT = new double[rounds];
      double[] hotT = new double[rounds];
      double[] hotCharged = new double[rounds];
      double[] plainEpoch = new double[rounds];
      double[] hotEpoch = new double[rounds];
      int steps = 0;
      Map<String, Object> avoided = null;
      Map<String, Object> kernels = new LinkedHashMap<>();
      for (int r = -1; r < rounds; r++) {
        boolean last = r == rounds - 1;
        resetKernelTimes(be, last);
        EpochStats p = epoch(plain, data.open(0));
        kernelTimes(be, last, "kernel_ms_plain.", p.batches(), kernels);
        double refresh0 = refreshSeconds(hot);
        // The untimed epoch samples every batch in full and the trainer prunes it, which counts
        // what reuse avoids; the timed ones leave the hot rows out as they sample (the same
        // blocks).
        resetKernelTimes(be, last);
        EpochStats h = epoch(hot, r < 0 ? data.open(0) : hot.open(data, 0));
        kernelTimes(be, last, "kernel_ms_reuse.", h.batches(), kernels);
        double refresh = refreshSeconds(hot) - refresh0;
        if (r < 0) {
          avoided = new LinkedHashMap<>(hot.reuseStats());
        }
        if (r >= 0) {
          steps = p.batches();
          plainEpoch[r] = p.seconds();
          hotEpoch[r] = h.seconds();
          plainT[r] = (p.seconds() - p.waitSeconds()) / p.batches();
          hotT[r] = (h.seconds() - h.waitSeconds()) / h.batches();
          hotCharged[r] = hotT[r] + (reuse.inlineOn(be) ? 0 : refresh / h.batches());
        }
      }
      double plainMed = median(plainT);
      double hotMed = median(hotT);
      double chargedMed = median(hotCharged);
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("backend", be.name());
      out.put("vertices", s.vertices());
      out.put("edges", bg.csr().numEdges());
      out.put("features", s.features());
      out.put("hidden", s.hidden());
      out.put("fanouts", Arrays.toString(s.fanouts()));
      out.put("batch_size", s.batchSize());
      out.put("feature_access", s.featureAccess().id());
      out.put("steps_per_epoch", steps);
      out.put("reuse_hot", reuse.fraction());
      out.put("staleness", reuse.autoStaleness() ? "auto" : reuse.staleness());
      out.put("hot_by", reuse.hotBy().id());
      out.put("reuse_rounds", rounds);
      out.put("hot_set_seconds", hotSetSeconds);
      out.put("seconds_per_step_plain", plainMed);
      out.put("seconds_per_step_reuse", hotMed);
      out.put("seconds_per_step_reuse_refresh_charged", chargedMed);
      out.put("speedup", plainMed / hotMed);
      out.put("speedup_refresh_charged", plainMed / chargedMed);
      out.put("seconds_per_epoch_plain", median(plainEpoch));
      out.put("seconds_per_epoch_reuse", median(hotEpoch));
      out.put("speedup_epoch", median(plainEpoch) / median(hotEpoch));
      out.put("seconds_per_step_plain_rounds", Arrays.toString(plainT));
      out.put("seconds_per_step_reuse_rounds", Arrays.toString(hotT));
      Map<String, Object> stats = hot.reuseStats();
      for (Map.Entry<String, Object> e : avoided.entrySet()) {
        if (e.getKey().startsWith("bottom_") || e.getKey().startsWith("feature_rows")) {
          stats.put(e.getKey(), e.getValue()); // one epoch sampled in full
        }
      }
      out.putAll(stats);
      out.putAll(kernels);
      return out;
    }
  }

  private static void resetKernelTimes(Backend be, boolean last) {
    if (last && be instanceof CudaBackend cuda) {
      cuda.resetTransferStats();
    }
  }

  /**
   * With {@code -Dfanout.cuda.kernel-times=true}, the last round's device milliseconds per step of
   * each kernel, under {@code prefix}.
   */
  private static void kernelTimes(
      Backend be, boolean last, String prefix, int steps, Map<String, Object> out) {
    if (last && be instanceof CudaBackend cuda) {
      cuda.kernelTimes().forEach((k, v) -> out.put(prefix + k, v[0] / Math.max(1, steps)));
    }
  }

  private static double refreshSeconds(Trainer t) {
    Object v = t.reuseStats().get("refresh_seconds");
    return v == null ? 0 : (double) v;
  }

  private static EpochStats epoch(Trainer t, BatchStream batches) {
    try (BatchStream stream = batches) {
      return t.trainEpoch(0, -1, stream, 0.003f, TrainProgress.NONE);
    }
  }

  private static double median(double[] a) {
    double[] b = a.clone();
    Arrays.sort(b);
    int n = b.length;
    return n % 2 == 1 ? b[n / 2] : (b[n / 2 - 1] + b[n / 2]) / 2;
  }
}
