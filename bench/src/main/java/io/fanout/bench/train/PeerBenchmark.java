package io.fanout.bench.train;

import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.tensor.Backend;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.KernelFeatureRows;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.GradientReducer;
import io.fanout.train.StepStats;
import io.fanout.train.TrainBatch;
import io.fanout.train.TrainOptions;
import io.fanout.train.Trainer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fanout's training step against a peer framework's on identical batches. The batches of the {@code
 * bench-train} graph, their gathered features, the feature table and the model's initial parameters
 * are exported once as {@code .npy} files ({@link PeerExport}); then Fanout and the peer train the
 * same GraphSAGE on them in alternating rounds, each run from the same initial parameters, and each
 * timing only its training steps (the batches are already in memory when a step starts).
 *
 * <p>A round runs Fanout once per feature-access mode ({@code gather}: the batch's rows from the
 * heap, uploaded by the trainer; {@code zero-copy}: the trainer's kernels read the rows by node id
 * from the table in mapped pinned host memory; {@code device}: from the table in device memory),
 * each twice: every step alone, followed by {@link Backend#sync()} so that the clock stops when its
 * work has run, and the timed steps as one loop with a single sync at the end, divided by the
 * steps. Then the peer runs its variants ({@link PeerRun}).
 */
public final class PeerBenchmark {
  /** The model and optimizer both sides train, as bench-train's. */
  static final float LR = 0.003f;

  static final float WEIGHT_DECAY = 0f;
  static final long SEED = 1;

  private PeerBenchmark() {}

  /** Runs a peer over an export directory. */
  public interface Peer {
    /** A short name, e.g. {@code torch}. */
    String name();

    /**
     * Trains over {@code dir}'s batches, the first {@code warmup} untimed, on the GPU when {@code
     * cuda}, else on the CPU with {@code threads} threads.
     */
    PeerRun run(Path dir, int warmup, int threads, boolean cuda);
  }

  /**
   * One run of one variant.
   *
   * @param stepSeconds mean seconds of a timed step timed alone (synchronised around it)
   * @param loopSecondsPerStep seconds of the timed steps run as one loop, divided by the steps
   * @param losses the loss of every step, warmup included
   */
  public record Timing(double stepSeconds, double loopSecondsPerStep, double[] losses) {}

  /**
   * What the peer measured in one round: per variant (in its order) a timing, and what it reports
   * about itself and the machine (numbers among them are medians over rounds in the report).
   */
  public record PeerRun(Map<String, Timing> variants, Map<String, Object> about) {}

  /**
   * The feature-access modes Fanout runs in on {@code be}: {@code asked} when it names one, else
   * all that {@code be} offers ({@code gather}, and on CUDA {@code zero-copy} and {@code device}).
   */
  static List<FeatureAccessMode> modes(FeatureAccessMode asked, Backend be) {
    boolean cuda = be instanceof CudaBackend;
    if (asked != FeatureAccessMode.AUTO) {
      if (asked.readsInPlace() && !cuda) {
        throw new io.fanout.store.InvalidInputException(
            "--feature-access "
                + asked.id()
                + " is measured on the CUDA backend only (got "
                + be.name()
                + "); use --backend cuda or leave --feature-access at auto");
      }
      return List.of(asked);
    }
    return cuda
        ? List.of(FeatureAccessMode.GATHER, FeatureAccessMode.ZERO_COPY, FeatureAccessMode.DEVICE)
        : List.of(FeatureAccessMode.GATHER);
  }

  /**
   * Alternates {@code rounds} rounds of Fanout (each of {@code modes}) and {@code peer} over an
   * export directory on {@code be} and compares them ({@link PeerReport}).
   */
  public static Map<String, Object> compare(
      Path dir,
      ModelConfig cfg,
      int warmup,
      int batches,
      int rounds,
      int threads,
      Peer peer,
      Backend be,
      List<FeatureAccessMode> modes) {
    int steps = warmup + batches;
    float[] init = NpyFiles.readFloats(dir.resolve("params.npy"));
    boolean inPlace = modes.stream().anyMatch(FeatureAccessMode::readsInPlace);
    List<TrainBatch> withRows =
        modes.contains(FeatureAccessMode.GATHER)
            ? PeerExport.readBatches(dir, cfg, steps, true)
            : null;
    List<TrainBatch> idsOnly = inPlace ? PeerExport.readBatches(dir, cfg, steps, false) : null;
    Map<FeatureAccessMode, KernelFeatureRows> tables = new EnumMap<>(FeatureAccessMode.class);
    try {
      if (inPlace) {
        NpyFiles.FloatMatrix table = PeerExport.features(dir);
        CudaBackend cuda = (CudaBackend) be;
        for (FeatureAccessMode m : modes) {
          if (m == FeatureAccessMode.ZERO_COPY) {
            tables.put(
                m, KernelFeatureRows.pinnedCopy(cuda, table.data(), table.rows(), table.cols()));
          } else if (m == FeatureAccessMode.DEVICE) {
            tables.put(
                m, KernelFeatureRows.residentCopy(cuda, table.data(), table.rows(), table.cols()));
          }
        }
      }
      Map<FeatureAccessMode, List<Timing>> ours = new EnumMap<>(FeatureAccessMode.class);
      Map<String, List<Timing>> theirs = new LinkedHashMap<>();
      List<Map<String, Object>> abouts = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        for (FeatureAccessMode m : modes) {
          List<TrainBatch> input = m.readsInPlace() ? idsOnly : withRows;
          ours.computeIfAbsent(m, k -> new ArrayList<>())
              .add(runFanout(input, cfg, be, warmup, tables.get(m), init));
        }
        PeerRun run = peer.run(dir, warmup, threads, be instanceof CudaBackend);
        for (Map.Entry<String, Timing> v : run.variants().entrySet()) {
          if (v.getValue().losses().length != steps) {
            throw new IllegalStateException(
                peer.name()
                    + " "
                    + v.getKey()
                    + " reported "
                    + v.getValue().losses().length
                    + " losses for "
                    + steps
                    + " steps");
          }
          theirs.computeIfAbsent(v.getKey(), k -> new ArrayList<>()).add(v.getValue());
        }
        abouts.add(run.about());
      }
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("peer", peer.name());
      out.put("backend", be.name());
      out.put("threads", threads);
      out.put("rounds", rounds);
      out.put("warmup", warmup);
      out.put("timed_steps", batches);
      out.putAll(PeerReport.of(peer.name(), ours, theirs, abouts, be instanceof CudaBackend));
      return out;
    } finally {
      for (KernelFeatureRows t : tables.values()) {
        t.close();
      }
    }
  }

  /**
   * Fanout over {@code batches} from {@code init}, twice, each from a fresh model: every step timed
   * alone, then the timed steps as one loop. {@code rows}: the table the trainer reads batches
   * without rows from (null: they bring their rows).
   */
  static Timing runFanout(
      List<TrainBatch> batches,
      ModelConfig cfg,
      Backend be,
      int warmup,
      FeatureRows rows,
      float[] init) {
    Pass alone = train(batches, cfg, be, warmup, rows, init, true);
    Pass loop = train(batches, cfg, be, warmup, rows, init, false);
    return new Timing(mean(alone.seconds()), loop.loopSecondsPerStep(), alone.losses());
  }

  private record Pass(double[] seconds, double loopSecondsPerStep, double[] losses) {}

  /**
   * One pass. With {@code eachAlone} each timed step is followed by {@code be.sync()} inside its
   * clock; else the clock starts after a sync at the first timed step and stops after a sync that
   * follows the last. Each step's loss is read back after the next step is queued ({@link
   * Trainer#queueStep}), as in training, so the loop has no host wait between steps.
   */
  private static Pass train(
      List<TrainBatch> batches,
      ModelConfig cfg,
      Backend be,
      int warmup,
      FeatureRows rows,
      float[] init,
      boolean eachAlone) {
    int steps = batches.size();
    double[] seconds = new double[eachAlone ? steps - warmup : 0];
    double[] losses = new double[steps];
    long start = 0;
    long end;
    try (GnnModel model = new GnnModel(cfg, be);
        Trainer trainer =
            new Trainer(
                model,
                new TrainOptions(1, LR, WEIGHT_DECAY, LrSchedule.CONSTANT, SEED),
                GradientReducer.LOCAL)) {
      if (init.length != model.numParams()) {
        throw new IllegalStateException(
            "params.npy has " + init.length + " values, the model " + model.numParams());
      }
      model.loadParams(init);
      trainer.readFeaturesFrom(rows);
      Trainer.QueuedStep previous = null;
      for (int i = 0; i < steps; i++) {
        if (i == warmup && !eachAlone) {
          be.sync();
          start = System.nanoTime();
        }
        long t0 = System.nanoTime();
        Trainer.QueuedStep queued = trainer.queueStep(batches.get(i), 0, LR);
        if (eachAlone) {
          be.sync();
          if (i >= warmup) {
            seconds[i - warmup] = (System.nanoTime() - t0) / 1e9;
          }
        }
        if (previous != null) { // read back after the next step is queued, as trainEpoch does
          losses[i - 1] = meanLoss(previous.stats());
        }
        previous = queued;
      }
      be.sync();
      end = System.nanoTime();
      if (previous != null) {
        losses[steps - 1] = meanLoss(previous.stats());
      }
    }
    int timed = steps - warmup;
    double loop = eachAlone || timed == 0 ? 0 : (end - start) / 1e9 / timed;
    return new Pass(seconds, loop, losses);
  }

  private static double meanLoss(StepStats st) {
    return st.labeled() == 0 ? 0 : st.lossSum() / st.labeled();
  }

  static double mean(double[] a) {
    double s = 0;
    for (double x : a) {
      s += x;
    }
    return a.length == 0 ? 0 : s / a.length;
  }
}
