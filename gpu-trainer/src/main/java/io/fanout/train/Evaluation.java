package io.fanout.train;

import io.fanout.graph.VertexTable;
import io.fanout.nn.BatchTensors;
import io.fanout.nn.GnnModel;
import io.fanout.sample.MiniBatch;
import io.fanout.tensor.Backend;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.TensorBufs;

/**
 * Accuracy of per-vertex logits against a {@link VertexTable}'s labels, by split, and of a model on
 * the labeled seeds of a stream of batches.
 */
public final class Evaluation {
  private Evaluation() {}

  /** Accuracy over the labeled vertices of split {@code splitCode}. */
  public static Accuracy accuracy(float[] logits, int classes, VertexTable v, byte splitCode) {
    long correct = 0;
    long total = 0;
    for (int i = 0; i < v.numVertices(); i++) {
      int y = v.label(i);
      if (y < 0 || v.split(i) != splitCode) {
        continue;
      }
      total++;
      if (argmax(logits, i * classes, classes) == y) {
        correct++;
      }
    }
    return new Accuracy(correct, total, 0);
  }

  /**
   * Accuracy and loss of {@code model} over the labeled seeds of {@code stream}, without dropout.
   */
  public static Accuracy accuracy(GnnModel model, BatchStream stream) {
    return accuracy(model, stream, null);
  }

  /**
   * As {@link #accuracy(GnnModel, BatchStream)}; batches without features read theirs from {@code
   * featureRows} (see {@link Trainer#readFeaturesFrom}).
   */
  public static Accuracy accuracy(GnnModel model, BatchStream stream, FeatureRows featureRows) {
    Backend be = model.backend();
    int classes = model.config().classes();
    FloatTensor probs = null;
    long correct = 0;
    long total = 0;
    double loss = 0;
    try {
      TrainBatch b;
      while ((b = stream.next()) != null) {
        MiniBatch mb = b.batch();
        int rows = mb.numSeeds();
        BatchTensors t = Trainer.upload(model, featureRows, b, mb.labels(), rows);
        FloatTensor logits = model.forward(t, false, 0L);
        probs = TensorBufs.ensure(be, probs, (long) rows * classes);
        loss += be.softmaxCrossEntropy(logits, rows, classes, t.labels(), probs, null, 1f);
        correct += be.countCorrect(probs, rows, classes, t.labels());
        for (int l : mb.labels()) {
          total += l >= 0 ? 1 : 0;
        }
        stream.recycle(b);
      }
    } finally {
      TensorBufs.free(be, probs);
    }
    return new Accuracy(correct, total, loss);
  }

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
