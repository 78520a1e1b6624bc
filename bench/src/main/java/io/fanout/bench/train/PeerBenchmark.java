package io.fanout.bench.train;

import io.fanout.nn.Adam;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.sample.MiniBatch;
import io.fanout.tensor.Backend;
import io.fanout.tensor.Backends;
import io.fanout.train.BatchStream;
import io.fanout.train.GradientReducer;
import io.fanout.train.SampledEpochs;
import io.fanout.train.StepStats;
import io.fanout.train.TrainBatch;
import io.fanout.train.TrainOptions;
import io.fanout.train.Trainer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Fanout's training step against a peer framework's on identical batches. The batches of the {@code
 * bench-train} graph, their gathered features and the model's initial parameters are exported once
 * as {@code .npy} files ({@link #export}); then Fanout and the peer train the same GraphSAGE on
 * them in alternating rounds, each round from the same initial parameters, and each timing only its
 * training steps (the batches are already in memory when a step starts).
 *
 * <p>Layout of the export directory: {@code config.json} (model, optimizer, parameter layout),
 * {@code params.npy} (initial parameters, Fanout's flat layout: per layer the {@code 2in x out}
 * weight of the concat form {@code [x_dst | mean(x_src)]}, row-major, then the {@code out} bias)
 * and per batch {@code batch-NNNN/} with {@code layer_sizes.npy}, {@code nodes.npy}, {@code
 * indptr_H.npy} and {@code indices_H.npy} for hop {@code H = 1..L} (as in a shard), {@code
 * labels.npy} and {@code x.npy} (the features of all nodes, row-major).
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
     * Trains over {@code dir}'s batches: the first {@code warmup} untimed, the rest timed.
     *
     * @return per timed step the seconds ({@code seconds}) and per step the loss ({@code losses}),
     *     plus anything the peer reports about itself
     */
    Result run(Path dir, int warmup, int threads);
  }

  /** What one side measured in one round. */
  public record Result(double[] seconds, double[] losses, Map<String, Object> about) {}

  /**
   * Samples {@code s.warmup() + s.batches()} batches of the bench-train graph and writes them, the
   * configuration and the initial parameters into {@code dir} (created; must be empty or absent).
   *
   * @param dropout the model's dropout rate (bench-train's is 0.5; 0 makes both sides compute the
   *     same function, step for step)
   * @return the model configuration
   */
  public static ModelConfig export(TrainBenchmark.Settings s, float dropout, Path dir) {
    try {
      Files.createDirectories(dir);
      try (var entries = Files.list(dir)) {
        if (entries.findAny().isPresent()) {
          throw new io.fanout.store.InvalidInputException(
              dir + ": the export directory is not empty; give a new or empty directory");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir, e);
    }
    BenchGraph bg = BenchGraph.generate(s.vertices(), s.edges(), s.features());
    ModelConfig cfg = bg.sageConfig(s.hidden(), s.fanouts().length, dropout);
    try (GnnModel model = new GnnModel(cfg, Backends.select())) {
      model.init(SEED);
      NpyFiles.writeFloats(dir.resolve("params.npy"), model.params(), model.numParams());
      writeConfig(dir.resolve("config.json"), cfg, model.numParams(), s);
    }
    int total = s.warmup() + s.batches();
    SampledEpochs data = TrainBenchmark.sampledEpochs(bg, bg.spreadSeeds(total * s.batchSize()), s);
    int written = 0;
    try (BatchStream stream = data.open(0)) {
      TrainBatch b;
      while ((b = stream.next()) != null) {
        if (written < total) {
          writeBatch(dir.resolve(String.format(Locale.ROOT, "batch-%04d", written)), b);
          written++;
        }
        stream.recycle(b);
      }
    }
    return cfg;
  }

  /**
   * Alternates {@code rounds} rounds of Fanout and {@code peer} over an export directory and
   * compares them.
   */
  public static Map<String, Object> compare(
      Path dir, ModelConfig cfg, int warmup, int batches, int rounds, int threads, Peer peer) {
    Backend be = Backends.select();
    List<Double> ours = new ArrayList<>();
    List<Double> theirs = new ArrayList<>();
    Result lastOurs = null;
    Result lastTheirs = null;
    for (int r = 0; r < rounds; r++) {
      lastOurs = runFanout(dir, cfg, be, warmup, warmup + batches);
      ours.add(mean(lastOurs.seconds()));
      lastTheirs = peer.run(dir, warmup, threads);
      if (lastTheirs.losses().length != warmup + batches) {
        throw new IllegalStateException(
            peer.name()
                + " reported "
                + lastTheirs.losses().length
                + " losses for "
                + (warmup + batches)
                + " steps");
      }
      theirs.add(mean(lastTheirs.seconds()));
    }
    double fanoutStep = median(ours);
    double peerStep = median(theirs);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("peer", peer.name());
    out.put("backend", be.name());
    out.put("threads", threads);
    out.put("rounds", rounds);
    out.put("timed_steps", batches);
    out.put("fanout_seconds_per_step", fanoutStep);
    out.put(peer.name() + "_seconds_per_step", peerStep);
    out.put("fanout_over_" + peer.name(), fanoutStep / peerStep);
    out.put("fanout_seconds_per_step_by_round", ours);
    out.put(peer.name() + "_seconds_per_step_by_round", theirs);
    out.put("fanout_first_loss", lastOurs.losses()[0]);
    out.put(peer.name() + "_first_loss", lastTheirs.losses()[0]);
    out.put("fanout_last_loss", last(lastOurs.losses()));
    out.put(peer.name() + "_last_loss", last(lastTheirs.losses()));
    out.put("fanout_losses", lastOurs.losses());
    out.put(peer.name() + "_losses", lastTheirs.losses());
    out.putAll(lastTheirs.about());
    return out;
  }

  /** One Fanout round: a fresh model from the exported parameters, timing each step alone. */
  static Result runFanout(Path dir, ModelConfig cfg, Backend be, int warmup, int steps) {
    float[] init = NpyFiles.readFloats(dir.resolve("params.npy"));
    double[] seconds = new double[steps - warmup];
    double[] losses = new double[steps];
    try (GnnModel model = new GnnModel(cfg, be);
        Trainer trainer =
            new Trainer(
                model,
                new TrainOptions(1, LR, WEIGHT_DECAY, LrSchedule.CONSTANT, SEED),
                GradientReducer.LOCAL)) {
      if (init.length != model.numParams()) {
        throw new IllegalStateException(
            dir + "/params.npy has " + init.length + " values, the model " + model.numParams());
      }
      model.loadParams(init);
      for (int i = 0; i < steps; i++) {
        TrainBatch b = readBatch(dir.resolve(String.format(Locale.ROOT, "batch-%04d", i)), cfg);
        long t0 = System.nanoTime();
        StepStats st = trainer.step(b, 0, LR);
        long t1 = System.nanoTime();
        if (i >= warmup) {
          seconds[i - warmup] = (t1 - t0) / 1e9;
        }
        losses[i] = st.labeled() == 0 ? 0 : st.lossSum() / st.labeled();
      }
    }
    return new Result(seconds, losses, Map.of());
  }

  private static void writeBatch(Path dir, TrainBatch b) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir, e);
    }
    MiniBatch mb = b.batch();
    int[] sizes = mb.layerSizes();
    NpyFiles.writeInts(dir.resolve("layer_sizes.npy"), sizes, sizes.length);
    NpyFiles.writeInts(dir.resolve("nodes.npy"), mb.nodes(), mb.nodes().length);
    for (int h = 1; h <= mb.layers(); h++) {
      int[] ptr = mb.indptr(h);
      NpyFiles.writeInts(dir.resolve("indptr_" + h + ".npy"), ptr, ptr.length);
      NpyFiles.writeInts(dir.resolve("indices_" + h + ".npy"), mb.indices(h), ptr[ptr.length - 1]);
    }
    NpyFiles.writeInts(dir.resolve("labels.npy"), mb.labels(), mb.labels().length);
    NpyFiles.writeFloats(dir.resolve("x.npy"), b.features(), mb.nodes().length * b.dim());
  }

  private static TrainBatch readBatch(Path dir, ModelConfig cfg) {
    int[] sizes = NpyFiles.readInts(dir.resolve("layer_sizes.npy"));
    int layers = sizes.length - 1;
    int[][] indptr = new int[layers][];
    int[][] indices = new int[layers][];
    for (int h = 1; h <= layers; h++) {
      indptr[h - 1] = NpyFiles.readInts(dir.resolve("indptr_" + h + ".npy"));
      indices[h - 1] = NpyFiles.readInts(dir.resolve("indices_" + h + ".npy"));
    }
    MiniBatch mb =
        new MiniBatch(
            0,
            0,
            NpyFiles.readInts(dir.resolve("nodes.npy")),
            sizes,
            indptr,
            indices,
            NpyFiles.readInts(dir.resolve("labels.npy")));
    return TrainBatch.of(mb, NpyFiles.readFloats(dir.resolve("x.npy")), cfg.inDim());
  }

  private static void writeConfig(
      Path file, ModelConfig cfg, int numParams, TrainBenchmark.Settings s) {
    StringBuilder layout = new StringBuilder();
    int offset = 0;
    for (int l = 0; l < cfg.layers(); l++) {
      int in = l == 0 ? cfg.inDim() : cfg.hidden();
      int out = l == cfg.layers() - 1 ? cfg.classes() : cfg.hidden();
      layout
          .append(l == 0 ? "" : ", ")
          .append(
              String.format(
                  Locale.ROOT,
                  "{\"weight\": %d, \"in\": %d, \"out\": %d, \"bias\": %d}",
                  offset,
                  in,
                  out,
                  offset + 2 * in * out));
      offset += 2 * in * out + out;
    }
    if (offset != numParams) {
      throw new IllegalStateException("parameter layout " + offset + " != model " + numParams);
    }
    String json =
        String.format(
            Locale.ROOT,
            "{\"model\": \"sage\", \"aggregation\": \"mean\", \"activation\": \"relu\",%n"
                + " \"in_dim\": %d, \"hidden\": %d, \"classes\": %d, \"layers\": %d,"
                + " \"dropout\": %s,%n"
                + " \"lr\": %s, \"weight_decay\": %s, \"beta1\": %s, \"beta2\": %s, \"eps\": %s,%n"
                + " \"batches\": %d, \"fanouts\": \"%s\", \"batch_size\": %d,%n"
                + " \"num_params\": %d, \"layout\": [%s]}%n",
            cfg.inDim(),
            cfg.hidden(),
            cfg.classes(),
            cfg.layers(),
            Float.toString(cfg.dropout()),
            Float.toString(LR),
            Float.toString(WEIGHT_DECAY),
            Float.toString(Adam.BETA1),
            Float.toString(Adam.BETA2),
            Float.toString(Adam.EPS),
            s.warmup() + s.batches(),
            Arrays.toString(s.fanouts()),
            s.batchSize(),
            numParams,
            layout);
    try {
      Files.writeString(file, json, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static double mean(double[] a) {
    double s = 0;
    for (double x : a) {
      s += x;
    }
    return a.length == 0 ? 0 : s / a.length;
  }

  private static double last(double[] a) {
    return a[a.length - 1];
  }

  private static double median(List<Double> a) {
    double[] s = a.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
