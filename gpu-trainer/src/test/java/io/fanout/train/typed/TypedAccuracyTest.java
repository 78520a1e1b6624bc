package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.CpuBackend;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Relation-aware models on a generated graph whose labels depend on a typed two-hop path: target
 * {@code T <-r1- A <-r2- B}, with a decoy path {@code T <-r3- C <-r4- D} of the same shape and
 * feature distribution. A target's label is whether the mean over its A neighbors of the mean
 * {@code x} of their B neighbors is positive. R-GCN and HSAGE separate the paths and reach the
 * floor; the same R-GCN over the graph with every relation merged into one (and one vertex type)
 * mixes both paths and stays clearly below it.
 */
class TypedAccuracyTest {
  private static final int N = 800;
  private static final int DEG = 3;

  /** The edges of a relation into {@code N} destinations, {@code DEG} random sources each. */
  private static int[][] edges(long key) {
    int[] src = new int[N * DEG];
    int[] dst = new int[N * DEG];
    for (int i = 0; i < src.length; i++) {
      dst[i] = i / DEG;
      src[i] = (int) (CounterRng.uniform(key, i) * N);
    }
    return new int[][] {src, dst};
  }

  private record Data(
      int[][] r1,
      int[][] r2,
      int[][] r3,
      int[][] r4,
      float[] xb,
      float[] xd,
      int[] labels,
      byte[] splits) {}

  private static Data data(long seed) {
    int[][] r1 = edges(CounterRng.key(seed, 1, 0, 0));
    int[][] r2 = edges(CounterRng.key(seed, 2, 0, 0));
    int[][] r3 = edges(CounterRng.key(seed, 3, 0, 0));
    int[][] r4 = edges(CounterRng.key(seed, 4, 0, 0));
    float[] xb = new float[N];
    float[] xd = new float[N];
    for (int i = 0; i < N; i++) {
      xb[i] = 2f * CounterRng.uniform(CounterRng.key(seed, 5, 0, 0), i) - 1f;
      xd[i] = 2f * CounterRng.uniform(CounterRng.key(seed, 6, 0, 0), i) - 1f;
    }
    double[] meanA = new double[N]; // per A: mean x of its B in-neighbors over r2
    for (int i = 0; i < r2[0].length; i++) {
      meanA[r2[1][i]] += xb[r2[0][i]] / DEG;
    }
    double[] score = new double[N];
    for (int i = 0; i < r1[0].length; i++) {
      score[r1[1][i]] += meanA[r1[0][i]] / DEG;
    }
    int[] labels = new int[N];
    byte[] splits = new byte[N];
    for (int i = 0; i < N; i++) {
      labels[i] = score[i] > 0 ? 1 : 0;
      float u = CounterRng.uniform(CounterRng.key(seed, 7, 0, 0), i);
      splits[i] =
          u < 0.6f
              ? StoreLayout.SPLIT_TRAIN
              : u < 0.8f ? StoreLayout.SPLIT_VAL : StoreLayout.SPLIT_TEST;
    }
    return new Data(r1, r2, r3, r4, xb, xd, labels, splits);
  }

  private static float[] ones() {
    float[] a = new float[N];
    Arrays.fill(a, 1f);
    return a;
  }

  private static TypedGraph typed(Data d) {
    return ArrayTypedGraph.builder()
        .type("T", N, 1, ones(), d.labels(), d.splits())
        .type("A", N, 1, ones(), null, null)
        .type("B", N, 1, d.xb(), null, null)
        .type("C", N, 1, ones(), null, null)
        .type("D", N, 1, d.xd(), null, null)
        .relation("r1", "A", "T", d.r1()[0], d.r1()[1])
        .relation("r2", "B", "A", d.r2()[0], d.r2()[1])
        .relation("r3", "C", "T", d.r3()[0], d.r3()[1])
        .relation("r4", "D", "C", d.r4()[0], d.r4()[1])
        .build();
  }

  /** One type of 5N vertices (T, A, B, C, D in that order) and one relation holding every edge. */
  private static TypedGraph typeBlind(Data d) {
    float[] x = new float[5 * N];
    Arrays.fill(x, 1f);
    System.arraycopy(d.xb(), 0, x, 2 * N, N);
    System.arraycopy(d.xd(), 0, x, 4 * N, N);
    int[] labels = new int[5 * N];
    byte[] splits = new byte[5 * N];
    Arrays.fill(labels, -1);
    System.arraycopy(d.labels(), 0, labels, 0, N);
    System.arraycopy(d.splits(), 0, splits, 0, N);
    int[][][] rels = {d.r1(), d.r2(), d.r3(), d.r4()};
    int[] srcBase = {N, 2 * N, 3 * N, 4 * N};
    int[] dstBase = {0, N, 0, 3 * N};
    int[] src = new int[4 * N * DEG];
    int[] dst = new int[4 * N * DEG];
    int e = 0;
    for (int r = 0; r < 4; r++) {
      for (int i = 0; i < rels[r][0].length; i++, e++) {
        src[e] = srcBase[r] + rels[r][0][i];
        dst[e] = dstBase[r] + rels[r][1][i];
      }
    }
    return ArrayTypedGraph.builder()
        .type("v", 5 * N, 1, x, labels, splits)
        .relation("all", "v", "v", src, dst)
        .build();
  }

  private static double testAccuracy(TypedGraph g, TypedModelKind kind) {
    return testAccuracy(g, kind, io.fanout.nn.typed.HgnSettings.DEFAULT);
  }

  private static double testAccuracy(
      TypedGraph g, TypedModelKind kind, io.fanout.nn.typed.HgnSettings hgn) {
    int[][] fanouts = new int[g.schema().numRelations()][];
    for (int r = 0; r < fanouts.length; r++) {
      fanouts[r] = new int[] {-1, -1};
    }
    TypedSampler sampler = TypedSampler.of(new TypedNeighborSampler(g, 0, fanouts, 3));
    TypedModelConfig cfg =
        TypedModelConfig.of(g.schema(), 0, kind, 16, 2, 0f, 0, EmbeddingMode.AUTO).withHgn(hgn);
    TypedTrainOptions opts = new TypedTrainOptions(40, 64, 0.01f, 0f, 1);
    try (TypedModel m = new TypedModel(cfg, new CpuBackend());
        TypedTrainer t = new TypedTrainer(m, g, sampler, opts)) {
      m.init(opts.seed());
      t.fit(null, null);
      F1Scores test = t.evaluate(StoreLayout.SPLIT_TEST);
      assertThat(test.rows()).isGreaterThan(100);
      return test.accuracy();
    }
  }

  @Test
  void relationAwareModelsLearnTheTypedPathAndATypeBlindOneDoesNot() {
    Data d = data(17);
    double rgcn = testAccuracy(typed(d), TypedModelKind.RGCN);
    double hsage = testAccuracy(typed(d), TypedModelKind.HSAGE);
    double blind = testAccuracy(typeBlind(d), TypedModelKind.RGCN);
    assertThat(rgcn).as("rgcn").isGreaterThanOrEqualTo(0.9);
    assertThat(hsage).as("hsage").isGreaterThanOrEqualTo(0.9);
    assertThat(blind).as("type-blind rgcn").isLessThan(0.82);
    System.out.printf(
        "typed path accuracy: rgcn %.3f hsage %.3f type-blind %.3f%n", rgcn, hsage, blind);
  }

  @Test
  void attentionOverTypedEdgesLearnsTheTypedPath() {
    double hgn =
        testAccuracy(
            typed(data(17)),
            TypedModelKind.HGN,
            new io.fanout.nn.typed.HgnSettings(2, 0.05f, 0f, 8));
    assertThat(hgn).as("hgn").isGreaterThanOrEqualTo(0.9);
    System.out.printf("typed path accuracy: hgn %.3f%n", hgn);
  }
}
