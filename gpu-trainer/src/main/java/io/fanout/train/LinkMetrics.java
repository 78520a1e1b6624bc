package io.fanout.train;

import io.fanout.graph.HeldOutEdges;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * Ranking metrics of link prediction over a split's positive and negative pair scores. Definitions
 * (ties included, {@code docs/inference.md}):
 *
 * <ul>
 *   <li>{@code auc}: the probability that a positive scores above a negative, ties counting 1/2
 *       (the Mann-Whitney U statistic over P x N).
 *   <li>{@code ap}: average precision of the ranking by descending score, {@code sum_k (R_k -
 *       R_{k-1}) P_k} over the distinct score thresholds (tied pairs enter together), as
 *       scikit-learn's {@code average_precision_score}.
 *   <li>{@code mrr}: the mean over positives of 1 / rank, the rank of a positive among itself and
 *       the negatives with the same source, ties at the mean of the optimistic and pessimistic rank
 *       (as OGB).
 *   <li>{@code hits@K}: the fraction of positives scoring strictly above the K-th highest negative
 *       score (OGB's Hits@K); 1 when there are fewer than K negatives.
 * </ul>
 */
public record LinkMetrics(
    long positives,
    long negatives,
    double auc,
    double ap,
    double mrr,
    double hits10,
    double hits50,
    double hits100) {

  /**
   * The metrics of the first {@code n} labelled pairs: pair {@code i} has source {@code src[i]},
   * score {@code score[i]}, and is a positive when {@code positive} holds for {@code i}, else a
   * negative.
   */
  public static LinkMetrics ofLabelled(int n, int[] src, float[] score, IntPredicate positive) {
    int np = 0;
    for (int i = 0; i < n; i++) {
      np += positive.test(i) ? 1 : 0;
    }
    int[] posSrc = new int[np];
    float[] pos = new float[np];
    int[] negSrc = new int[n - np];
    float[] neg = new float[n - np];
    for (int i = 0, a = 0, b = 0; i < n; i++) {
      if (positive.test(i)) {
        posSrc[a] = src[i];
        pos[a++] = score[i];
      } else {
        negSrc[b] = src[i];
        neg[b++] = score[i];
      }
    }
    return of(posSrc, pos, negSrc, neg);
  }

  /** The metrics of held-out pairs {@code h} scored {@code score} (label 1: positive). */
  public static LinkMetrics of(HeldOutEdges h, float[] score) {
    return ofLabelled(h.size(), h.src, score, i -> h.label[i] == 1);
  }

  /**
   * The metrics of positive pairs {@code (posSrc[i], ., posScore[i])} against negative pairs {@code
   * (negSrc[j], ., negScore[j])}.
   */
  public static LinkMetrics of(int[] posSrc, float[] pos, int[] negSrc, float[] neg) {
    return new LinkMetrics(
        pos.length,
        neg.length,
        auc(pos, neg),
        averagePrecision(pos, neg),
        mrr(posSrc, pos, negSrc, neg),
        hits(pos, neg, 10),
        hits(pos, neg, 50),
        hits(pos, neg, 100));
  }

  /** The metrics as JSON-ready fields, in the documented order. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("positives", positives);
    m.put("negatives", negatives);
    m.put("auc", auc);
    m.put("ap", ap);
    m.put("mrr", mrr);
    m.put("hits@10", hits10);
    m.put("hits@50", hits50);
    m.put("hits@100", hits100);
    return m;
  }

  static double auc(float[] pos, float[] neg) {
    if (pos.length == 0 || neg.length == 0) {
      return Double.NaN;
    }
    float[] n = neg.clone();
    Arrays.sort(n);
    double u = 0;
    for (float p : pos) {
      int below = lowerBound(n, p);
      int notAbove = upperBound(n, p);
      u += below + 0.5 * (notAbove - below);
    }
    return u / ((double) pos.length * neg.length);
  }

  static double averagePrecision(float[] pos, float[] neg) {
    if (pos.length == 0) {
      return Double.NaN;
    }
    // key: the score's order-preserving bits above the label; ascending sort, read from the end
    int total = pos.length + neg.length;
    long[] keys = new long[total];
    for (int i = 0; i < pos.length; i++) {
      keys[i] = ((sortableBits(pos[i]) & 0xFFFFFFFFL) << 1) | 1;
    }
    for (int j = 0; j < neg.length; j++) {
      keys[pos.length + j] = (sortableBits(neg[j]) & 0xFFFFFFFFL) << 1;
    }
    Arrays.sort(keys);
    double ap = 0;
    long tp = 0;
    long seen = 0;
    double prevRecall = 0;
    for (int i = total - 1; i >= 0; ) {
      long score = keys[i] >>> 1;
      int j = i;
      while (j >= 0 && keys[j] >>> 1 == score) { // pairs tied on the score enter together
        tp += keys[j] & 1;
        j--;
      }
      seen += i - j;
      double recall = (double) tp / pos.length;
      ap += (recall - prevRecall) * ((double) tp / seen);
      prevRecall = recall;
      i = j;
    }
    return ap;
  }

  static double mrr(int[] posSrc, float[] pos, int[] negSrc, float[] neg) {
    if (pos.length == 0) {
      return Double.NaN;
    }
    // negatives grouped by source: sort (source, score) pairs
    int m = neg.length;
    long[] keyed = new long[m];
    for (int j = 0; j < m; j++) {
      keyed[j] = ((long) negSrc[j] << 32) | (sortableBits(neg[j]) & 0xFFFFFFFFL);
    }
    Arrays.sort(keyed);
    double sum = 0;
    for (int i = 0; i < pos.length; i++) {
      long base = (long) posSrc[i] << 32;
      int from = lowerBound(keyed, base);
      int to = lowerBound(keyed, base + (1L << 32));
      long bits = sortableBits(pos[i]) & 0xFFFFFFFFL;
      int notAbove = lowerBound(keyed, base | bits, from, to); // first >= pos
      int atOrBelow = lowerBound(keyed, (base | bits) + 1, from, to); // first > pos
      long above = to - atOrBelow;
      long ties = atOrBelow - notAbove;
      double rank = 1 + above + 0.5 * ties;
      sum += 1 / rank;
    }
    return sum / pos.length;
  }

  static double hits(float[] pos, float[] neg, int k) {
    if (pos.length == 0) {
      return Double.NaN;
    }
    if (neg.length < k) {
      return 1;
    }
    float[] n = neg.clone();
    Arrays.sort(n);
    float kth = n[n.length - k];
    long hit = 0;
    for (float p : pos) {
      hit += p > kth ? 1 : 0;
    }
    return (double) hit / pos.length;
  }

  /** An int whose unsigned order is the float order (no NaN scores). */
  private static int sortableBits(float f) {
    int b = Float.floatToIntBits(f == 0f ? 0f : f); // -0 as 0
    return b >= 0 ? b ^ 0x80000000 : ~b;
  }

  private static int lowerBound(float[] a, float x) {
    int lo = 0;
    int hi = a.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (a[mid] < x) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static int upperBound(float[] a, float x) {
    int lo = 0;
    int hi = a.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (a[mid] <= x) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static int lowerBound(long[] a, long x) {
    return lowerBound(a, x, 0, a.length);
  }

  private static int lowerBound(long[] a, long x, int from, int to) {
    int lo = from;
    int hi = to;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (a[mid] < x) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
