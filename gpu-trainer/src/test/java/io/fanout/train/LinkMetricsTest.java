package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Each link metric against a direct O(P x N) reference on fixed scores, ties included. */
class LinkMetricsTest {
  static double refAuc(float[] pos, float[] neg) {
    double u = 0;
    for (float p : pos) {
      for (float n : neg) {
        u += p > n ? 1 : p == n ? 0.5 : 0;
      }
    }
    return u / (pos.length * (double) neg.length);
  }

  /** scikit-learn's definition: thresholds at every distinct score, descending. */
  static double refAp(float[] pos, float[] neg) {
    float[] all = new float[pos.length + neg.length];
    System.arraycopy(pos, 0, all, 0, pos.length);
    System.arraycopy(neg, 0, all, pos.length, neg.length);
    float[] t =
        Arrays.stream(toDouble(all))
            .distinct()
            .sorted()
            .mapToObj(d -> (float) d)
            .collect(
                java.util.stream.Collectors.collectingAndThen(
                    java.util.stream.Collectors.toList(),
                    l -> {
                      float[] a = new float[l.size()];
                      for (int i = 0; i < a.length; i++) {
                        a[i] = l.get(l.size() - 1 - i);
                      }
                      return a;
                    }));
    double ap = 0;
    double prev = 0;
    for (float th : t) {
      int tp = 0;
      int fp = 0;
      for (float p : pos) {
        tp += p >= th ? 1 : 0;
      }
      for (float n : neg) {
        fp += n >= th ? 1 : 0;
      }
      double recall = tp / (double) pos.length;
      ap += (recall - prev) * tp / (double) (tp + fp);
      prev = recall;
    }
    return ap;
  }

  static double[] toDouble(float[] a) {
    double[] d = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      d[i] = a[i];
    }
    return d;
  }

  static double refMrr(int[] ps, float[] pos, int[] ns, float[] neg) {
    double sum = 0;
    for (int i = 0; i < pos.length; i++) {
      int above = 0;
      int ties = 0;
      for (int j = 0; j < neg.length; j++) {
        if (ns[j] == ps[i]) {
          above += neg[j] > pos[i] ? 1 : 0;
          ties += neg[j] == pos[i] ? 1 : 0;
        }
      }
      double optimistic = above + 1;
      double pessimistic = above + ties + 1;
      sum += 1 / ((optimistic + pessimistic) / 2);
    }
    return sum / pos.length;
  }

  static double refHits(float[] pos, float[] neg, int k) {
    if (neg.length < k) {
      return 1;
    }
    float[] n = neg.clone();
    Arrays.sort(n);
    float kth = n[n.length - k]; // k-th highest
    int hit = 0;
    for (float p : pos) {
      hit += p > kth ? 1 : 0;
    }
    return hit / (double) pos.length;
  }

  @Test
  void labelledPairsSplitIntoTheSamePositivesAndNegatives() {
    // the hand-worked example's pairs interleaved, with a trailing pair past n
    int[] src = {0, 0, 0, 1, 1, 2, 2, 2, 0, 9};
    float[] score = {3, 2, 2, 1, 2, 0, -1, -1, 4, 100};
    int[] label = {1, 0, 1, 0, 1, 0, 1, 0, 0, 1};
    LinkMetrics m = LinkMetrics.ofLabelled(9, src, score, i -> label[i] == 1);
    LinkMetrics want =
        LinkMetrics.of(
            new int[] {0, 0, 1, 2},
            new float[] {3, 2, 2, -1},
            new int[] {0, 1, 2, 2, 0},
            new float[] {2, 1, 0, -1, 4});
    assertThat(m).isEqualTo(want);
    assertThat(m.positives()).isEqualTo(4);
    assertThat(m.negatives()).isEqualTo(5);
  }

  @Test
  void handWorkedExampleWithTies() {
    float[] pos = {3, 2, 2, -1};
    int[] ps = {0, 0, 1, 2};
    float[] neg = {2, 1, 0, -1, 4};
    int[] ns = {0, 1, 2, 2, 0};
    LinkMetrics m = LinkMetrics.of(ps, pos, ns, neg);
    // AUC: 3 beats 4 of 5; 2 beats 3, ties 1 (twice); -1 ties 1 -> (4 + 3.5 + 3.5 + 0.5) / 20
    assertThat(m.auc()).isCloseTo(11.5 / 20, within(1e-12));
    // MRR: pos 3 (src 0) vs {2, 4}: rank 2; pos 2 (src 0) vs {2, 4}: rank 2.5; pos 2 (src 1) vs
    // {1}: rank 1; pos -1 (src 2) vs {0, -1}: rank 2.5
    assertThat(m.mrr()).isCloseTo((1 / 2.0 + 1 / 2.5 + 1 + 1 / 2.5) / 4, within(1e-12));
    // 5 negatives < 10: every Hits@K is 1
    assertThat(m.hits10()).isEqualTo(1.0);
    // AP: thresholds 4 (P 0/1), 3 (1/2: R .25), 2 (3/5: R .75), 1, 0, -1 (4/9: R 1)
    assertThat(m.ap()).isCloseTo(0.25 * 0.5 + 0.5 * 3 / 5.0 + 0.25 * 4 / 9.0, within(1e-12));
    assertThat(LinkMetrics.hits(pos, neg, 2)).isEqualTo(0.25); // 2nd highest negative is 2
  }

  @Test
  void matchesTheReferenceOnRandomScoresWithManyTies() {
    SplittableRandom r = new SplittableRandom(9);
    for (int round = 0; round < 30; round++) {
      int p = 1 + r.nextInt(200);
      int n = 1 + r.nextInt(300);
      float[] pos = new float[p];
      float[] neg = new float[n];
      int[] ps = new int[p];
      int[] ns = new int[n];
      int levels = 1 + r.nextInt(20); // few distinct scores: many ties
      for (int i = 0; i < p; i++) {
        pos[i] = r.nextInt(levels) - levels / 2f;
        ps[i] = r.nextInt(15);
      }
      for (int j = 0; j < n; j++) {
        neg[j] = r.nextInt(levels) - levels / 2f - 1;
        ns[j] = r.nextInt(15);
      }
      LinkMetrics m = LinkMetrics.of(ps, pos, ns, neg);
      assertThat(m.auc()).isCloseTo(refAuc(pos, neg), within(1e-9));
      assertThat(m.ap()).isCloseTo(refAp(pos, neg), within(1e-9));
      assertThat(m.mrr()).isCloseTo(refMrr(ps, pos, ns, neg), within(1e-9));
      assertThat(m.hits10()).isCloseTo(refHits(pos, neg, 10), within(1e-12));
      assertThat(m.hits50()).isCloseTo(refHits(pos, neg, 50), within(1e-12));
      assertThat(m.hits100()).isCloseTo(refHits(pos, neg, 100), within(1e-12));
    }
  }
}
