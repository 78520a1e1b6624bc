package io.fanout.nn.typed;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.EmbeddingTable;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.CpuBackend;
import org.junit.jupiter.api.Test;

/**
 * The typed models' backward against central finite differences of the loss: every dense parameter
 * (input projections, self and relation weights, biases, bases and their coefficients) and every
 * learned embedding row the batch reads, with dropout on (its masks are a pure function of the
 * key).
 */
class TypedGradientCheckTest {
  private static final CpuBackend HOST = new CpuBackend();
  private static final long KEY = 77;

  static TypedMiniBatch batch(ArrayTypedGraph g) {
    return batch(g, new int[] {3, 2});
  }

  static TypedMiniBatch batch(ArrayTypedGraph g, int[] fanouts) {
    return new SimpleTypedSampler(g, 0, fanouts, 5).sample(0, 0, new int[] {0, 3, 7, 11, 2});
  }

  private static double loss(TypedModel m, TypedMiniBatch b, float[][] x) {
    float[] logits = logits(m, b, x);
    return sce(logits, b, m.config().classes(), null);
  }

  private static float[] logits(TypedModel m, TypedMiniBatch b, float[][] x) {
    int n = b.numSeeds() * m.config().classes();
    float[] out = new float[n];
    m.backend().download(m.forward(b, x, true, KEY), 0, out, 0, n);
    return out;
  }

  private static double sce(float[] logits, TypedMiniBatch b, int classes, float[] d) {
    int rows = b.numSeeds();
    float[] probs = new float[rows * classes];
    return HOST.softmaxCrossEntropy(
        HOST.wrap(logits),
        rows,
        classes,
        HOST.wrap(b.labels().clone()),
        HOST.wrap(probs),
        d == null ? null : HOST.wrap(d),
        1f);
  }

  private static void check(TypedModelKind kind, int bases, EmbeddingMode mode, float dropout) {
    ArrayTypedGraph g = TypedTestGraphs.small(11);
    check(
        g,
        TypedModelConfig.of(g.schema(), 0, kind, 4, 2, dropout, bases, mode),
        new int[] {3, 2},
        mode == EmbeddingMode.ALL ? 3 : 1);
  }

  static void check(ArrayTypedGraph g, TypedModelConfig cfg, int[] fanouts, int expectEmbedded) {
    TypedModelKind kind = cfg.kind();
    TypedModel m = new TypedModel(cfg, new CpuBackend());
    m.init(3);
    float[] p = m.params();
    for (int i = 0; i < p.length; i++) {
      p[i] += 0.1f * (CounterRng.uniform(9, i) - 0.5f);
    }
    m.loadParams(p);
    TypedMiniBatch b = batch(g, fanouts);
    float[][] x = SimpleTypedSampler.features(g, b);
    float[] lg = logits(m, b, x);
    float[] d = new float[lg.length];
    sce(lg, b, cfg.classes(), d);
    m.zeroGrad();
    m.backward(d);
    float[] analytic = m.grads();
    // the edge residual's weights are constants of the gradient (detached, as HGB)
    m.holdEdgeResidual(true);
    for (int i = 0; i < p.length; i++) {
      float saved = p[i];
      double[] l = new double[3];
      for (int s = 0; s < 3; s++) {
        p[i] = saved + (s - 1) * 1e-2f;
        m.loadParams(p);
        l[s] = loss(m, b, x);
      }
      p[i] = saved;
      m.loadParams(p);
      assertClose(kind + " param " + i, analytic[i], l);
    }
    int embeddedTypes = 0;
    for (int t = 0; t < cfg.numTypes(); t++) {
      EmbeddingTable table = m.embeddings(t);
      if (table == null) {
        continue;
      }
      embeddedTypes++;
      float[] eg = m.embeddingGradient(t);
      float[] values = table.chunks(0)[0];
      int[] nodes = b.nodes(t);
      double maxAbs = 0;
      int width = cfg.inputWidth();
      for (int i = 0; i < nodes.length * width; i++) {
        int at = nodes[i / width] * width + i % width;
        float saved = values[at];
        double[] l = new double[3];
        for (int s = 0; s < 3; s++) {
          values[at] = saved + (s - 1) * 1e-2f;
          l[s] = loss(m, b, x);
        }
        values[at] = saved;
        assertClose(kind + " embedding of type " + t + " element " + i, eg[i], l);
        maxAbs = Math.max(maxAbs, Math.abs(eg[i]));
      }
      assertThat(maxAbs).as("type %d gets an embedding gradient", t).isGreaterThan(1e-4);
    }
    assertThat(embeddedTypes).isEqualTo(expectEmbedded);
    m.close();
  }

  private static void assertClose(String what, float analytic, double[] l) {
    double h = 1e-2;
    double numeric = (l[2] - l[0]) / (2 * h);
    double tol = 2e-3 + 2e-2 * Math.abs(numeric);
    double err = Math.abs(analytic - numeric);
    if (err > tol) {
      // a relu kink inside [saved-h, saved+h]: one of the one-sided differences is exact
      double right = Math.abs(analytic - (l[2] - l[1]) / h);
      double left = Math.abs(analytic - (l[1] - l[0]) / h);
      err = Math.min(right, left) <= 2 * tol ? 0 : err;
    }
    assertThat(err)
        .as("%s analytic %f numeric %f", what, analytic, numeric)
        .isLessThanOrEqualTo(tol);
  }

  @Test
  void rgcn() {
    check(TypedModelKind.RGCN, 0, EmbeddingMode.AUTO, 0.2f);
  }

  @Test
  void rgcnWithBases() {
    check(TypedModelKind.RGCN, 2, EmbeddingMode.AUTO, 0.2f);
  }

  @Test
  void hsage() {
    check(TypedModelKind.HSAGE, 0, EmbeddingMode.AUTO, 0.2f);
  }

  @Test
  void everyTypeEmbedded() {
    check(TypedModelKind.RGCN, 0, EmbeddingMode.ALL, 0f);
  }

  @Test
  void hgnTwoLayersLinearResidual() {
    ArrayTypedGraph g = TypedTestGraphs.small(11);
    TypedModelConfig cfg =
        TypedModelConfig.of(g.schema(), 0, TypedModelKind.HGN, 4, 2, 0.2f, 0, EmbeddingMode.AUTO)
            .withHgn(new HgnSettings(2, 0.2f, 0.3f, 3, 2.5f));
    check(g, cfg, new int[] {3, 2}, 1);
  }

  @Test
  void hgnWiderInputProjections() {
    // input projections and the term type's embedding rows 6 wide, the first layer 2 x 4
    ArrayTypedGraph g = TypedTestGraphs.small(11);
    TypedModelConfig cfg =
        TypedModelConfig.of(g.schema(), 0, TypedModelKind.HGN, 4, 2, 0.2f, 0, EmbeddingMode.AUTO)
            .withHgn(new HgnSettings(2, 0.2f, 0.3f, 3, 2.5f).withInputWidth(6));
    assertThat(cfg.inputWidth()).isEqualTo(6);
    assertThat(cfg.layerIn(0)).isEqualTo(6);
    check(g, cfg, new int[] {3, 2}, 1);
  }

  @Test
  void hgnThreeLayersIdentityResidual() {
    // one head: the middle layer maps hidden to hidden, its residual is the identity; a mild
    // LeakyReLU slope, as three layers move many attention scores across its kink at once
    ArrayTypedGraph g = TypedTestGraphs.small(11);
    TypedModelConfig cfg =
        TypedModelConfig.of(g.schema(), 0, TypedModelKind.HGN, 4, 3, 0.1f, 0, EmbeddingMode.AUTO)
            .withHgn(new HgnSettings(1, 0.8f, 0.2f, 2));
    check(g, cfg, new int[] {2, 2, 2}, 1);
  }

  /** The logits of an hgn model of {@code layers} layers with edge residual {@code beta}. */
  private static float[] hgnLogits(int layers, float beta) {
    ArrayTypedGraph g = TypedTestGraphs.small(11);
    TypedModelConfig cfg =
        TypedModelConfig.of(g.schema(), 0, TypedModelKind.HGN, 2, layers, 0f, 0, EmbeddingMode.AUTO)
            .withHgn(new HgnSettings(2, 0.2f, 0f, 2).withAttnResidual(beta));
    int[] fanouts = new int[layers];
    java.util.Arrays.fill(fanouts, 3);
    try (TypedModel m = new TypedModel(cfg, new CpuBackend())) {
      m.init(3);
      TypedMiniBatch b = batch(g, fanouts);
      return logits(m, b, SimpleTypedSampler.features(g, b));
    }
  }

  @Test
  void hgnEdgeResidualActsFromThreeLayers() {
    // the first layer and the one-head output layer have none (as HGB): two layers ignore beta
    assertThat(hgnLogits(2, 0.3f)).containsExactly(hgnLogits(2, 0f));
    assertThat(hgnLogits(3, 0.3f)).isNotEqualTo(hgnLogits(3, 0f));
  }

  @Test
  void hgnThreeLayersEdgeResidual() {
    // the middle layer mixes the first layer's weights of the edges both hops drew (sampled
    // fanouts: some edges of its hop are missing from the hop before); two heads, as HGB's hidden
    // layers have several
    ArrayTypedGraph g = TypedTestGraphs.small(11);
    TypedModelConfig cfg =
        TypedModelConfig.of(g.schema(), 0, TypedModelKind.HGN, 2, 3, 0.1f, 0, EmbeddingMode.AUTO)
            .withHgn(new HgnSettings(2, 0.8f, 0.2f, 2).withAttnResidual(0.3f));
    check(g, cfg, new int[] {2, 3, 2}, 1);
  }
}
