package io.fanout.train;

import io.fanout.graph.VertexTable;

/** Accuracy of per-vertex logits against a {@link VertexTable}'s labels, by split. */
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
      if (Trainer.argmax(logits, i * classes, classes) == y) {
        correct++;
      }
    }
    return new Accuracy(correct, total, 0);
  }
}
