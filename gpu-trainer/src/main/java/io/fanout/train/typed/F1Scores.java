package io.fanout.train.typed;

/**
 * Accuracy, Micro-F1 and Macro-F1 of a node classifier, single- or multi-label, accumulated one
 * vertex at a time from per-class true positives, false positives and false negatives.
 *
 * <ul>
 *   <li>Micro-F1: {@code 2 TP / (2 TP + FP + FN)} over all classes together (equal to the accuracy
 *       for single-label predictions).
 *   <li>Macro-F1: the mean of the per-class F1 ({@code 2 tp / (2 tp + fp + fn)}, 0 when the class
 *       has none of the three), as scikit-learn's {@code f1_score(average="macro")}: single-label
 *       over the classes that occur in the truth or the predictions, multi-label over all classes.
 *   <li>Accuracy: the share of vertices whose prediction equals the truth (multi-label: the whole
 *       set, "subset accuracy").
 * </ul>
 */
public final class F1Scores {
  private final int classes;
  private final boolean multiLabel;
  private final long[] tp;
  private final long[] fp;
  private final long[] fn;
  private long rows;
  private long exact;

  public F1Scores(int classes, boolean multiLabel) {
    this.classes = classes;
    this.multiLabel = multiLabel;
    tp = new long[classes];
    fp = new long[classes];
    fn = new long[classes];
  }

  /** One single-label vertex; a negative {@code truth} (unlabelled) is skipped. */
  public void add(int truth, int predicted) {
    if (truth < 0) {
      return;
    }
    rows++;
    if (truth == predicted) {
      exact++;
      tp[truth]++;
    } else {
      fn[truth]++;
      fp[predicted]++;
    }
  }

  /**
   * One multi-label vertex: its classes {@code truth[from .. to)} (distinct) and the predicted set
   * {@code predicted[c]} for {@code c < classes}.
   */
  public void add(int[] truth, int from, int to, boolean[] predicted) {
    rows++;
    boolean[] t = new boolean[classes];
    for (int i = from; i < to; i++) {
      t[truth[i]] = true;
    }
    boolean same = true;
    for (int c = 0; c < classes; c++) {
      if (t[c] && predicted[c]) {
        tp[c]++;
      } else if (t[c]) {
        fn[c]++;
        same = false;
      } else if (predicted[c]) {
        fp[c]++;
        same = false;
      }
    }
    if (same) {
      exact++;
    }
  }

  /** Adds another accumulation's counts (same classes). */
  public void merge(F1Scores o) {
    for (int c = 0; c < classes; c++) {
      tp[c] += o.tp[c];
      fp[c] += o.fp[c];
      fn[c] += o.fn[c];
    }
    rows += o.rows;
    exact += o.exact;
  }

  /** Vertices counted. */
  public long rows() {
    return rows;
  }

  /** Vertices whose prediction equals the truth. */
  public long correct() {
    return exact;
  }

  public double accuracy() {
    return rows == 0 ? 0 : (double) exact / rows;
  }

  public double microF1() {
    long t = 0;
    long f = 0;
    for (int c = 0; c < classes; c++) {
      t += tp[c];
      f += fp[c] + fn[c];
    }
    return t == 0 ? 0 : 2.0 * t / (2.0 * t + f);
  }

  public double macroF1() {
    double sum = 0;
    int n = 0;
    for (int c = 0; c < classes; c++) {
      long d = 2 * tp[c] + fp[c] + fn[c];
      if (d == 0 && !multiLabel) {
        continue;
      }
      n++;
      sum += d == 0 ? 0 : 2.0 * tp[c] / d;
    }
    return n == 0 ? 0 : sum / n;
  }

  /** {@code accuracy}, {@code micro_f1} and {@code macro_f1}, in that order. */
  public java.util.Map<String, Double> metrics() {
    java.util.Map<String, Double> m = new java.util.LinkedHashMap<>();
    m.put("accuracy", accuracy());
    m.put("micro_f1", microF1());
    m.put("macro_f1", macroF1());
    return m;
  }

  @Override
  public String toString() {
    return String.format(
        java.util.Locale.ROOT,
        "accuracy=%.4f micro_f1=%.4f macro_f1=%.4f (%d vertices)",
        accuracy(),
        microF1(),
        macroF1(),
        rows);
  }
}
