package io.fanout.tensor.cuda;

import java.util.Arrays;

/**
 * What overlapped transfer achieved, from the event timeline of a run: for batch {@code i}, its
 * upload on the copy stream ran over {@code [copyStart[i], copyEnd[i]]} and its step on the compute
 * stream over {@code [computeStart[i], computeEnd[i]]} (milliseconds from a common base event).
 *
 * <ul>
 *   <li>{@link #hiddenShare()}: the part of all copy time during which the compute stream was busy
 *       (with any batch), over all copy time: 1 when every copy ran under compute.
 *   <li>{@link #dataWaitShare()}: from the second batch on, the time the compute stream sat idle
 *       after batch {@code i-1} because batch {@code i}'s upload had not finished ({@code max(0,
 *       min(computeStart[i], copyEnd[i]) - computeEnd[i-1])}), over the time from the end of the
 *       first step to the end of the last.
 * </ul>
 */
public final class OverlapStats {
  private final double copyMs;
  private final double hiddenMs;
  private final double waitMs;
  private final double stepMs;
  private final int batches;

  private OverlapStats(double copyMs, double hiddenMs, double waitMs, double stepMs, int batches) {
    this.copyMs = copyMs;
    this.hiddenMs = hiddenMs;
    this.waitMs = waitMs;
    this.stepMs = stepMs;
    this.batches = batches;
  }

  /** Computes the shares; the four arrays hold one entry per batch in submission order. */
  public static OverlapStats of(
      double[] copyStart, double[] copyEnd, double[] computeStart, double[] computeEnd) {
    int n = copyStart.length;
    if (copyEnd.length != n || computeStart.length != n || computeEnd.length != n) {
      throw new IllegalArgumentException("timeline arrays differ in length");
    }
    double[][] busy = mergedIntervals(computeStart, computeEnd);
    double copy = 0;
    double hidden = 0;
    for (int i = 0; i < n; i++) {
      copy += copyEnd[i] - copyStart[i];
      hidden += covered(busy, copyStart[i], copyEnd[i]);
    }
    double wait = 0;
    for (int i = 1; i < n; i++) {
      wait += Math.max(0, Math.min(computeStart[i], copyEnd[i]) - computeEnd[i - 1]);
    }
    double step = n > 1 ? computeEnd[n - 1] - computeEnd[0] : 0;
    return new OverlapStats(copy, hidden, wait, step, n);
  }

  private static double[][] mergedIntervals(double[] start, double[] end) {
    int n = start.length;
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Double.compare(start[a], start[b]));
    double[][] out = new double[n][];
    int m = 0;
    for (int k = 0; k < n; k++) {
      int i = order[k];
      if (m > 0 && start[i] <= out[m - 1][1]) {
        out[m - 1][1] = Math.max(out[m - 1][1], end[i]);
      } else {
        out[m++] = new double[] {start[i], end[i]};
      }
    }
    return Arrays.copyOf(out, m);
  }

  private static double covered(double[][] busy, double a, double b) {
    double sum = 0;
    for (double[] iv : busy) {
      sum += Math.max(0, Math.min(b, iv[1]) - Math.max(a, iv[0]));
    }
    return sum;
  }

  public int batches() {
    return batches;
  }

  public double copyMs() {
    return copyMs;
  }

  public double hiddenMs() {
    return hiddenMs;
  }

  /** Hidden copy time over copy time (1 when nothing was copied). */
  public double hiddenShare() {
    return copyMs == 0 ? 1 : hiddenMs / copyMs;
  }

  /** Compute-stream idle time waiting for uploads over step time (0 with fewer than 2 batches). */
  public double dataWaitShare() {
    return stepMs == 0 ? 0 : waitMs / stepMs;
  }

  @Override
  public String toString() {
    return String.format(
        java.util.Locale.ROOT,
        "%d batches: copy %.3f ms, %.1f%% hidden behind compute; data wait %.1f%% of step time",
        batches,
        copyMs,
        100 * hiddenShare(),
        100 * dataWaitShare());
  }
}
