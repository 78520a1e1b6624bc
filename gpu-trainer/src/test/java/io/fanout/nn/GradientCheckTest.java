package io.fanout.nn;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.tensor.CounterRng;
import io.fanout.tensor.CpuBackend;
import org.junit.jupiter.api.Test;

/**
 * Every layer's backward against central finite differences of the loss, for both models, both
 * activations and with dropout on (its masks are a pure function of the key, so the loss is a
 * deterministic function of the parameters).
 */
class GradientCheckTest {

  /** A random 2-layer sample: 4 seeds, 9 hop-1 nodes, 16 hop-2 nodes. */
  static Block[] blocks() {
    int[] sizes = {4, 9, 16};
    Block[] b = new Block[2];
    for (int l = 0; l < 2; l++) {
      int dst = sizes[1 - l];
      int src = sizes[2 - l];
      int[] indptr = new int[dst + 1];
      int[] idx = new int[dst * 3];
      int e = 0;
      for (int i = 0; i < dst; i++) {
        int deg = (i % 4);
        for (int d = 0; d < deg; d++) {
          idx[e++] = (int) (CounterRng.uniform(l * 100 + i, d) * src);
        }
        indptr[i + 1] = e;
      }
      b[l] = new Block(indptr, java.util.Arrays.copyOf(idx, e), dst, src);
    }
    return b;
  }

  private static final CpuBackend HOST = new CpuBackend();

  /** Softmax cross-entropy of host arrays (wrapped, so the results land in them). */
  static double sce(float[] logits, int rows, int classes, int[] labels, float[] probs, float[] d) {
    return HOST.softmaxCrossEntropy(
        HOST.wrap(logits),
        rows,
        classes,
        HOST.wrap(labels),
        HOST.wrap(probs),
        d == null ? null : HOST.wrap(d),
        1f);
  }

  private static double loss(GnnModel m, Block[] b, float[] x, int[] labels) {
    float[] logits = m.forward(b, x, true, 77);
    int rows = b[b.length - 1].numDst();
    float[] probs = new float[rows * m.config().classes()];
    return sce(logits, rows, m.config().classes(), labels, probs, null);
  }

  /** A 2-layer config of 5 inputs, hidden 6 and 3 classes; gat with 3 heads of 2 columns. */
  static ModelConfig config(String kind, int in, float dropout, String act) {
    return config(kind, in, dropout, act, 1, false);
  }

  /**
   * As {@link #config(String, int, float, String)}, gat with {@code outHeads} averaged output heads
   * and its residual when {@code res}.
   */
  static ModelConfig config(
      String kind, int in, float dropout, String act, int outHeads, boolean res) {
    return new ModelConfig(
        ModelKind.parse(kind),
        in,
        6,
        3,
        2,
        dropout,
        ActivationKind.parse(act),
        FeatureNormKind.NONE,
        DecoderKind.DOT,
        new AttentionConfig(3, 0.2f, dropout, outHeads, res ? GatResidual.ON : GatResidual.OFF));
  }

  private static void check(String kind, String act, float dropout) {
    check(config(kind, 5, dropout, act), act);
  }

  private static void check(ModelConfig cfg, String act) {
    String kind = cfg.kind().id();
    GnnModel m = new GnnModel(cfg, new CpuBackend());
    m.init(3);
    // Non-zero biases so that the bias paths matter.
    float[] p = m.params();
    for (int i = 0; i < p.length; i++) {
      p[i] += 0.1f * (CounterRng.uniform(9, i) - 0.5f);
    }
    m.loadParams(p);
    Block[] b = blocks();
    float[] x = new float[16 * 5];
    for (int i = 0; i < x.length; i++) {
      x[i] = 2f * CounterRng.uniform(5, i) - 1f;
    }
    int[] labels = {0, 2, 1, -1};
    float[] logits = m.forward(b, x, true, 77);
    float[] probs = new float[12];
    float[] d = new float[12];
    sce(logits, 4, 3, labels, probs, d);
    m.zeroGrad();
    m.backward(d);
    float[] analytic = m.grads().clone();
    int checked = 0;
    for (int i = 0; i < p.length; i++) {
      float saved = p[i];
      float h = 1e-2f;
      p[i] = saved + h;
      m.loadParams(p);
      double lp = loss(m, b, x, labels);
      p[i] = saved - h;
      m.loadParams(p);
      double lm = loss(m, b, x, labels);
      p[i] = saved;
      m.loadParams(p);
      double l0 = loss(m, b, x, labels);
      double numeric = (lp - lm) / (2 * h);
      double tol = 2e-3 + 2e-2 * Math.abs(numeric);
      double err = Math.abs(analytic[i] - numeric);
      if (err > tol && act.equals("relu")) {
        // A relu kink between saved-h and saved+h: one of the one-sided differences is exact.
        double right = Math.abs(analytic[i] - (lp - l0) / h);
        double left = Math.abs(analytic[i] - (l0 - lm) / h);
        err = Math.min(right, left) <= 2 * tol ? 0 : err;
      }
      assertThat(err)
          .as("%s/%s param %d analytic %f numeric %f", kind, act, i, analytic[i], numeric)
          .isLessThanOrEqualTo(tol);
      checked++;
    }
    assertThat(checked).isEqualTo(m.numParams());
  }

  @Test
  void sageElu() {
    check("sage", "elu", 0f);
  }

  @Test
  void sageEluWithDropout() {
    check("sage", "elu", 0.3f);
  }

  @Test
  void sageRelu() {
    check("sage", "relu", 0.2f);
  }

  @Test
  void gcnElu() {
    check("gcn", "elu", 0.3f);
  }

  @Test
  void gcnRelu() {
    check("gcn", "relu", 0f);
  }

  @Test
  void gatElu() {
    check("gat", "elu", 0f);
  }

  @Test
  void gatReluWithDropout() {
    check("gat", "relu", 0.3f);
  }

  @Test
  void gatResidualElu() {
    check(config("gat", 5, 0f, "elu", 1, true), "elu");
  }

  @Test
  void gatResidualReluWithDropout() {
    check(config("gat", 5, 0.3f, "relu", 1, true), "relu");
  }

  @Test
  void gatAveragedOutputHeadsElu() {
    check(config("gat", 5, 0f, "elu", 2, false), "elu");
  }

  @Test
  void gatAveragedOutputHeadsAndResidualWithDropout() {
    check(config("gat", 5, 0.3f, "relu", 3, true), "relu");
  }

  @Test
  void threeLayers() {
    ModelConfig cfg = new ModelConfig("sage", 4, 5, 3, 3, 0f, "elu", "none");
    GnnModel m = new GnnModel(cfg, new CpuBackend());
    m.init(1);
    assertThat(m.numParams()).isEqualTo(2 * 4 * 5 + 5 + 2 * 5 * 5 + 5 + 2 * 5 * 3 + 3);
  }

  @Test
  void sparseInputPathMatchesDensePath() {
    for (ModelConfig cfg :
        new ModelConfig[] {
          config("sage", 40, 0.3f, "relu"),
          config("gcn", 40, 0.3f, "relu"),
          config("gat", 40, 0.3f, "relu"),
          config("gat", 40, 0.3f, "relu", 1, true),
          config("gat", 40, 0.3f, "relu", 2, true)
        }) {
      String kind = cfg.kind().id() + " " + cfg.attention();
      Block[] b = blocks();
      float[] x = new float[16 * 40];
      for (int i = 0; i < x.length; i++) {
        x[i] = CounterRng.uniform(5, i) < 0.03f ? 1f + CounterRng.uniform(6, i) : 0f;
      }
      float[][] out = new float[2][];
      float[][] grads = new float[2][];
      for (int sparse = 0; sparse < 2; sparse++) {
        GnnModel m = new GnnModel(cfg, new CpuBackend());
        m.allowSparseInput(sparse == 1);
        m.init(3);
        float[] logits = m.forward(b, x, true, 77);
        out[sparse] = java.util.Arrays.copyOf(logits, 12);
        float[] probs = new float[12];
        float[] d = new float[12];
        sce(logits, 4, 3, new int[] {0, 2, 1, 1}, probs, d);
        m.zeroGrad();
        m.backward(d);
        grads[sparse] = m.grads().clone();
      }
      for (int i = 0; i < 12; i++) {
        assertThat(out[1][i])
            .as(kind)
            .isCloseTo(out[0][i], org.assertj.core.api.Assertions.within(1e-5f));
      }
      double maxDiff = 0;
      double maxAbs = 0;
      for (int i = 0; i < grads[0].length; i++) {
        maxDiff = Math.max(maxDiff, Math.abs(grads[0][i] - grads[1][i]));
        maxAbs = Math.max(maxAbs, Math.abs(grads[0][i]));
      }
      assertThat(maxAbs).as(kind).isGreaterThan(1e-3);
      assertThat(maxDiff).as(kind).isLessThan(1e-5);
    }
  }
}
