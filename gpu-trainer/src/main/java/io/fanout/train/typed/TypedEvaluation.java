package io.fanout.train.typed;

import io.fanout.graph.TypedGraph;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.tensor.FloatTensor;
import io.fanout.train.Trainer;
import java.util.function.Consumer;

/**
 * Runs a typed model without dropout over the target type's vertices of a split, in batches of the
 * sampler (epoch 0, batch indices from 0), and scores or hands out its outputs. The parameters are
 * not touched.
 */
public final class TypedEvaluation {
  private TypedEvaluation() {}

  /** The target type's vertices in {@code split} ({@code StoreLayout.SPLIT_*}), ascending. */
  public static int[] seeds(TypedGraph g, int target, byte split) {
    var v = g.vertices(target);
    int n = v.numVertices();
    int count = 0;
    for (int i = 0; i < n; i++) {
      if (v.split(i) == split) {
        count++;
      }
    }
    int[] out = new int[count];
    int k = 0;
    for (int i = 0; i < n; i++) {
      if (v.split(i) == split) {
        out[k++] = i;
      }
    }
    return out;
  }

  /** One batch's outputs: its seeds, their logits ({@code seeds x classes}), the batch itself. */
  public record Outputs(int[] seeds, float[] logits, TypedMiniBatch batch, TypedModel model) {}

  /** Runs the model over {@code seeds} in batches, handing each batch's outputs to {@code sink}. */
  public static void run(
      TypedModel model,
      TypedGraph g,
      TypedSampler sampler,
      int[] seeds,
      int batchSize,
      long seed,
      Consumer<Outputs> sink) {
    TypedModelConfig cfg = model.config();
    for (int at = 0, batch = 0; at < seeds.length; at += batchSize, batch++) {
      int[] s = java.util.Arrays.copyOfRange(seeds, at, Math.min(seeds.length, at + batchSize));
      TypedMiniBatch b = sampler.sample(0, batch, s);
      sink.accept(
          new Outputs(s, logits(model, b, TypedFeatures.gather(g, model, b), seed), b, model));
    }
  }

  /** The model's logits ({@code seeds x classes}) of batch {@code b} with input rows {@code x}. */
  private static float[] logits(TypedModel model, TypedMiniBatch b, float[][] x, long seed) {
    FloatTensor lg = model.forward(b, x, false, Trainer.batchKey(seed, 0, b.batch()));
    float[] logits = new float[b.numSeeds() * model.config().classes()];
    model.backend().download(lg, 0, logits, 0, logits.length);
    return logits;
  }

  /**
   * Accuracy, Micro- and Macro-F1 of the model on pre-sampled batches: epoch 0 of {@code batches}
   * (validation shards), read with their input rows as the training batches are.
   */
  public static F1Scores scores(TypedModel model, TypedGraph g, TypedEpochs batches, long seed) {
    TypedModelConfig cfg = model.config();
    F1Scores f1 = new F1Scores(cfg.classes(), cfg.multiLabel());
    TypedBatchStream.forEach(
        batches,
        0,
        b -> TypedFeatures.gather(g, model, b),
        () -> false,
        in -> add(f1, cfg, in.batch(), logits(model, in.batch(), in.features(), seed)));
    return f1;
  }

  /** Accuracy, Micro- and Macro-F1 of the model on {@code seeds}. */
  public static F1Scores scores(
      TypedModel model, TypedGraph g, TypedSampler sampler, int[] seeds, int batchSize, long seed) {
    TypedModelConfig cfg = model.config();
    F1Scores f1 = new F1Scores(cfg.classes(), cfg.multiLabel());
    run(model, g, sampler, seeds, batchSize, seed, o -> add(f1, cfg, o.batch(), o.logits()));
    return f1;
  }

  /** Adds a batch's predictions to {@code f1}. */
  static void add(F1Scores f1, TypedModelConfig cfg, TypedMiniBatch b, float[] logits) {
    int classes = cfg.classes();
    int rows = b.numSeeds();
    if (cfg.multiLabel()) {
      int[] ptr = b.labelPtr();
      boolean[] pred = new boolean[classes];
      for (int r = 0; r < rows; r++) {
        if (ptr[r + 1] == ptr[r]) {
          continue;
        }
        for (int c = 0; c < classes; c++) {
          pred[c] = logits[r * classes + c] > 0f;
        }
        f1.add(b.labelIds(), ptr[r], ptr[r + 1], pred);
      }
      return;
    }
    int[] labels = b.labels();
    for (int r = 0; r < rows; r++) {
      f1.add(labels[r], argmax(logits, r * classes, classes));
    }
  }

  /** The first maximal column of a row. */
  static int argmax(float[] a, int off, int n) {
    int best = 0;
    for (int c = 1; c < n; c++) {
      if (a[off + c] > a[off + best]) {
        best = c;
      }
    }
    return best;
  }
}
