package io.fanout.bench.train;

import io.fanout.nn.Adam;
import io.fanout.nn.GnnModel;
import io.fanout.nn.ModelConfig;
import io.fanout.sample.MiniBatch;
import io.fanout.tensor.Backends;
import io.fanout.train.BatchStream;
import io.fanout.train.SampledEpochs;
import io.fanout.train.TrainBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The batches both sides of the peer benchmark train on, as {@code .npy} files that {@code
 * bench/torch_reference.py} reads with NumPy alone.
 *
 * <p>Layout of the export directory: {@code config.json} (model, optimizer, parameter layout),
 * {@code params.npy} (initial parameters, Fanout's flat layout: per layer the {@code 2in x out}
 * weight of the concat form {@code [x_dst | mean(x_src)]}, row-major, then the {@code out} bias),
 * {@code features.npy} (the generated feature table, {@code vertices x dim} f32, row-major: what
 * Fanout's {@code zero-copy} and {@code device} feature access read by node id) and per batch
 * {@code batch-NNNN/} with {@code layer_sizes.npy}, {@code nodes.npy}, {@code indptr_H.npy} and
 * {@code indices_H.npy} for hop {@code H = 1..L} (as in a shard), {@code labels.npy} and {@code
 * x.npy} (the rows of the table for {@code nodes}, row-major).
 */
final class PeerExport {
  static final String FEATURES = "features.npy";

  private PeerExport() {}

  /**
   * Samples {@code s.warmup() + s.batches()} batches of the bench-train graph and writes them, the
   * feature table, the configuration and the initial parameters into {@code dir} (created; must be
   * empty or absent).
   *
   * @param dropout the model's dropout rate (bench-train's is 0.5; 0 makes both sides compute the
   *     same function, step for step)
   * @return the model configuration
   */
  static ModelConfig export(TrainBenchmark.Settings s, float dropout, Path dir) {
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
      model.init(PeerBenchmark.SEED);
      NpyFiles.writeFloats(dir.resolve("params.npy"), model.params(), model.numParams());
      writeConfig(dir.resolve("config.json"), cfg, model.numParams(), s);
    }
    NpyFiles.writeMatrix(dir.resolve(FEATURES), bg.features(), s.vertices(), s.features());
    int total = s.warmup() + s.batches();
    SampledEpochs data = TrainBenchmark.sampledEpochs(bg, bg.spreadSeeds(total * s.batchSize()), s);
    int written = 0;
    try (BatchStream stream = data.open(0)) {
      TrainBatch b;
      while ((b = stream.next()) != null) {
        if (written < total) {
          writeBatch(batchDir(dir, written), b);
          written++;
        }
        stream.recycle(b);
      }
    }
    return cfg;
  }

  /**
   * The first {@code steps} exported batches, in order; with {@code withFeatures} each brings its
   * rows ({@code x.npy}, Fanout's {@code gather} path), else only its node ids (the trainer reads
   * the rows from the table).
   */
  static List<TrainBatch> readBatches(Path dir, ModelConfig cfg, int steps, boolean withFeatures) {
    List<TrainBatch> out = new ArrayList<>(steps);
    for (int i = 0; i < steps; i++) {
      out.add(readBatch(batchDir(dir, i), cfg, withFeatures));
    }
    return out;
  }

  /** The exported feature table ({@code features.npy}). */
  static NpyFiles.FloatMatrix features(Path dir) {
    return NpyFiles.readMatrix(dir.resolve(FEATURES));
  }

  static Path batchDir(Path dir, int i) {
    return dir.resolve(String.format(Locale.ROOT, "batch-%04d", i));
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

  private static TrainBatch readBatch(Path dir, ModelConfig cfg, boolean withFeatures) {
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
    float[] x = withFeatures ? NpyFiles.readFloats(dir.resolve("x.npy")) : null;
    return TrainBatch.of(mb, x, cfg.inDim());
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
            Float.toString(PeerBenchmark.LR),
            Float.toString(PeerBenchmark.WEIGHT_DECAY),
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
}
