package io.fanout.tensor;

import static io.fanout.tensor.AttentionFixture.d;
import static io.fanout.tensor.AttentionFixture.down;
import static io.fanout.tensor.AttentionFixture.up;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

/**
 * The attention, multi-label loss and L2 normalisation operations of the CPU backend against plain
 * double references, their gradients against central finite differences of those references, and
 * the checking backend: the same bits as the CPU, and clear failures on bad arguments.
 */
class AttentionOpsTest {
  private final CpuBackend cpu = new CpuBackend();

  private static AttentionFixture[] cases() {
    AttentionFixture dropped = new AttentionFixture(5, 7, 9, 2, 3, 2, true, 5);
    dropped.dropout = 0.4f;
    return new AttentionFixture[] {
      new AttentionFixture(1, 6, 9, 2, 3, 0, false, 4),
      new AttentionFixture(2, 7, 10, 3, 2, 0, true, 3),
      new AttentionFixture(3, 8, 8, 2, 4, 3, false, 5),
      new AttentionFixture(4, 5, 7, 1, 3, 2, true, 4),
      dropped,
      residual(new AttentionFixture(6, 6, 9, 2, 3, 3, true, 4), 0.3f, 0f),
      residual(new AttentionFixture(7, 7, 8, 3, 2, 0, false, 5), 0.05f, 0.4f),
    };
  }

  /** {@code f} with an edge residual of share {@code beta} and attention dropout {@code p}. */
  private static AttentionFixture residual(AttentionFixture f, float beta, float p) {
    f.beta = beta;
    f.dropout = p;
    return f;
  }

  private static void close(float[] got, double[] want, double tol, String what) {
    assertThat(got).as(what).hasSize(want.length);
    for (int i = 0; i < want.length; i++) {
      assertThat((double) got[i]).as("%s[%d]", what, i).isCloseTo(want[i], within(tol));
    }
  }

  @Test
  void attentionForwardMatchesTheReference() {
    for (AttentionFixture f : cases()) {
      AttentionFixture.Results r = f.run(cpu);
      double[][] ref = f.reference(d(f.sDst), d(f.sSrc), d(f.sRel), d(f.z));
      close(r.out(), ref[0], 1e-5, "out");
      close(r.alpha(), ref[1], 1e-6, "alpha");
      // row 1 has no listed edges: zero output without self loops
      if (!f.self) {
        for (int c = 0; c < f.heads * f.dim; c++) {
          assertThat(r.out()[f.heads * f.dim + c]).isZero();
        }
      }
    }
  }

  /** The central difference of {@code obj} in each element of {@code x}. */
  private static double[] numeric(double[] x, ToDoubleFunction<double[]> obj) {
    double h = 1e-6;
    double[] g = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      double v = x[i];
      x[i] = v + h;
      double up = obj.applyAsDouble(x);
      x[i] = v - h;
      double dn = obj.applyAsDouble(x);
      x[i] = v;
      g[i] = (up - dn) / (2 * h);
    }
    return g;
  }

  private static float[] minus(float[] a, float[] b) {
    float[] c = new float[a.length];
    for (int i = 0; i < a.length; i++) {
      c[i] = a[i] - b[i];
    }
    return c;
  }

  @Test
  void attentionGradientsMatchFiniteDifferences() {
    for (AttentionFixture f : cases()) {
      AttentionFixture.Results r = f.run(cpu);
      double[] sd = d(f.sDst);
      double[] ss = d(f.sSrc);
      double[] sr = d(f.sRel);
      double[] zz = d(f.z);
      close(minus(r.dz(), f.dz0), numeric(zz, x -> f.objective(sd, ss, sr, x)), 2e-4, "dz");
      close(
          minus(r.dsDst(), f.dsDst0), numeric(sd, x -> f.objective(x, ss, sr, zz)), 2e-4, "dsDst");
      close(
          minus(r.dsSrc(), f.dsSrc0), numeric(ss, x -> f.objective(sd, x, sr, zz)), 2e-4, "dsSrc");
      if (f.relations > 0) {
        close(
            minus(r.dsRel(), f.dsRel0),
            numeric(sr, x -> f.objective(sd, ss, x, zz)),
            2e-4,
            "dsRel");
      } else {
        assertThat(r.dsRel()).containsExactly(f.dsRel0);
      }
    }
  }

  @Test
  void checkingBackendGivesTheCpuBits() {
    for (AttentionFixture f : cases()) {
      AttentionFixture.Results want = f.run(cpu);
      try (CheckingBackend chk = new CheckingBackend(cpu)) {
        AttentionFixture.Results got = f.run(chk);
        assertThat(got.out()).containsExactly(want.out());
        assertThat(got.alpha()).containsExactly(want.alpha());
        assertThat(got.dz()).containsExactly(want.dz());
        assertThat(got.dsDst()).containsExactly(want.dsDst());
        assertThat(got.dsSrc()).containsExactly(want.dsSrc());
        assertThat(got.dsRel()).containsExactly(want.dsRel());
      }
    }
  }

  @Test
  void theResidualChangesTheOutputAndTheGradients() {
    AttentionFixture f = residual(new AttentionFixture(6, 6, 9, 2, 3, 3, true, 4), 0.3f, 0f);
    AttentionFixture.Results with = f.run(cpu);
    f.beta = 0f;
    AttentionFixture.Results without = f.run(cpu);
    assertThat(with.alpha()).containsExactly(without.alpha()); // alpha keeps the softmax
    assertThat(with.out()).isNotEqualTo(without.out());
    assertThat(with.dz()).isNotEqualTo(without.dz());
    assertThat(with.dsDst()).isNotEqualTo(without.dsDst());
  }

  /** The reference of {@link Backend#attentionResidualWeights}, in double. */
  private static double[] residualReference(AttentionFixture f, float[] prev, int[] prevSlots) {
    double[] out = new double[f.slots() * f.heads];
    int q0 = 0;
    for (int i = 0; i < f.rows; i++) {
      int n = f.indptr[i + 1] - f.indptr[i] + (f.self ? 1 : 0);
      for (int k = 0; k < f.heads; k++) {
        double sum = 0;
        for (int t = 0; t < n; t++) {
          sum += prevSlots[q0 + t] >= 0 ? prev[prevSlots[q0 + t] * f.heads + k] : 0;
        }
        for (int t = 0; t < n; t++) {
          int p = prevSlots[q0 + t];
          out[(q0 + t) * f.heads + k] = p >= 0 && sum > 0 ? prev[p * f.heads + k] / sum : 0;
        }
      }
      q0 += n;
    }
    return out;
  }

  @Test
  void residualWeightsAreTheSharedEdgesWeightsNormalisedPerRow() {
    for (AttentionFixture f : cases()) {
      Random r = new Random(f.rows * 31L + f.heads);
      int prevSlotCount = f.slots() + 3;
      float[] prev = new float[prevSlotCount * f.heads];
      for (int i = 0; i < prev.length; i++) {
        prev[i] = r.nextFloat();
      }
      int[] prevSlots = new int[f.slots()];
      for (int q = 0; q < prevSlots.length; q++) {
        prevSlots[q] = r.nextInt(4) == 0 ? -1 : r.nextInt(prevSlotCount);
      }
      if (prevSlots.length > 0) {
        prevSlots[0] = -1;
      }
      float[] got = f.residualWeights(cpu, prev, prevSlots);
      close(got, residualReference(f, prev, prevSlots), 1e-6, "residual weights");
      for (int q = 0; q < prevSlots.length; q++) {
        if (prevSlots[q] < 0) {
          for (int k = 0; k < f.heads; k++) {
            assertThat(got[q * f.heads + k]).isZero();
          }
        }
      }
      try (CheckingBackend chk = new CheckingBackend(cpu)) {
        assertThat(f.residualWeights(chk, prev, prevSlots)).containsExactly(got);
        int[] bad = prevSlots.clone();
        bad[bad.length - 1] = prevSlotCount + 5;
        assertThatThrownBy(() -> f.residualWeights(chk, prev, bad))
            .hasMessageContaining("earlier weights");
      }
    }
  }

  @Test
  void checkingBackendRefusesABadBlock() {
    try (CheckingBackend chk = new CheckingBackend(cpu)) {
      IntTensor ptr = up(chk, new int[] {0, 2, 3});
      IntTensor idx = up(chk, new int[] {0, 5, 1});
      IntTensor rel = up(chk, new int[] {0, 1, 2});
      FloatTensor sDst = chk.allocFloat(4);
      FloatTensor sSrc = chk.allocFloat(4); // two sources of two heads: source 5 is outside
      FloatTensor sRel = chk.allocFloat(4);
      FloatTensor z = chk.allocFloat(4 * 6);
      FloatTensor alpha = chk.allocFloat(6);
      FloatTensor out = chk.allocFloat(4);
      try {
        assertThatThrownBy(
                () ->
                    chk.attentionAggregate(
                        AttentionEdges.of(ptr, idx, 2, 3, false),
                        new AttentionHeads(2, 1, 0.2f, 0f, 0L),
                        AttentionInputs.of(sDst, sSrc, null, z),
                        FloatView.of(alpha),
                        FloatView.of(out)))
            .hasMessageContaining("source scores");
        assertThatThrownBy(
                () ->
                    chk.attentionAggregate(
                        AttentionEdges.of(ptr, idx, 2, 4, false),
                        new AttentionHeads(2, 1, 0.2f, 0f, 0L),
                        AttentionInputs.of(sDst, sSrc, null, z),
                        FloatView.of(alpha),
                        FloatView.of(out)))
            .hasMessageContaining("says 4 edges");
        assertThatThrownBy(
                () ->
                    chk.attentionAggregate(
                        AttentionEdges.withRelations(ptr, idx, rel, 2, 2, 3),
                        new AttentionHeads(2, 1, 0.2f, 0f, 0L),
                        AttentionInputs.of(sDst, sSrc, sRel, z),
                        FloatView.of(alpha),
                        FloatView.of(out)))
            .hasMessageContaining("edge 2 has relation 2, expected 0..1");
        assertThatThrownBy(
                () ->
                    chk.headScores(3, 2, 4, FloatView.of(z), FloatView.of(sDst), FloatView.of(out)))
            .hasMessageContaining("head scores vector");
      } finally {
        for (Tensor t : new Tensor[] {ptr, idx, rel, sDst, sSrc, sRel, z, alpha, out}) {
          chk.free(t);
        }
      }
    }
  }

  // ---- head scores ----

  @Test
  void headScoresAndTheirGradients() {
    Random r = new Random(7);
    int rows = 5;
    int heads = 3;
    int dim = 4;
    float[] z = gauss(r, rows * heads * dim + 2);
    float[] a = gauss(r, heads * dim + 1);
    float[] g = gauss(r, rows * heads);
    float[] dz0 = gauss(r, rows * heads * dim);
    float[] da0 = gauss(r, heads * dim);
    for (Backend b : new Backend[] {cpu, new CheckingBackend(cpu)}) {
      FloatTensor tz = up(b, z);
      FloatTensor ta = up(b, a);
      FloatTensor ts = b.allocFloat(rows * heads);
      FloatTensor tg = up(b, g);
      FloatTensor tdz = up(b, dz0);
      FloatTensor tda = up(b, da0);
      b.headScores(rows, heads, dim, FloatView.at(tz, 2), FloatView.at(ta, 1), FloatView.of(ts));
      b.headScoresBackward(
          rows,
          heads,
          dim,
          FloatView.at(tz, 2),
          FloatView.at(ta, 1),
          FloatView.of(tg),
          FloatView.of(tdz),
          FloatView.of(tda));
      float[] s = down(b, ts);
      double[] zd = d(z);
      double[] ad = d(a);
      ToDoubleFunction<double[]> objZ = x -> headObjective(x, ad, g, rows, heads, dim);
      ToDoubleFunction<double[]> objA = x -> headObjective(zd, x, g, rows, heads, dim);
      for (int i = 0; i < rows; i++) {
        for (int k = 0; k < heads; k++) {
          double want = 0;
          for (int dd = 0; dd < dim; dd++) {
            want += zd[2 + i * heads * dim + k * dim + dd] * ad[1 + k * dim + dd];
          }
          assertThat((double) s[i * heads + k]).isCloseTo(want, within(1e-5));
        }
      }
      double[] nz = numeric(zd, objZ);
      double[] na = numeric(ad, objA);
      close(minus(down(b, tdz), dz0), java.util.Arrays.copyOfRange(nz, 2, nz.length), 1e-4, "dz");
      close(minus(down(b, tda), da0), java.util.Arrays.copyOfRange(na, 1, na.length), 1e-4, "da");
      for (FloatTensor t : new FloatTensor[] {tz, ta, ts, tg, tdz, tda}) {
        b.free(t);
      }
      b.close();
    }
  }

  private static double headObjective(
      double[] z, double[] a, float[] g, int rows, int heads, int dim) {
    double s = 0;
    for (int i = 0; i < rows; i++) {
      for (int k = 0; k < heads; k++) {
        double dot = 0;
        for (int dd = 0; dd < dim; dd++) {
          dot += z[2 + i * heads * dim + k * dim + dd] * a[1 + k * dim + dd];
        }
        s += dot * g[i * heads + k];
      }
    }
    return s;
  }

  private static float[] gauss(Random r, int n) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) r.nextGaussian();
    }
    return a;
  }

  // ---- sigmoid cross-entropy ----

  private static double bce(double[] x, float[] t) {
    double s = 0;
    for (int i = 0; i < x.length; i++) {
      if (t[i] < 0) {
        continue;
      }
      // log p = -log(1 + e^-x), log(1 - p) = -x - log(1 + e^-x), without cancellation
      double logP = -Math.log1p(Math.exp(-x[i]));
      double log1mP = x[i] > 0 ? -x[i] + logP : -Math.log1p(Math.exp(x[i]));
      s -= t[i] * logP + (1 - t[i]) * log1mP;
    }
    return s;
  }

  @Test
  void sigmoidCrossEntropyMatchesTheReference() {
    Random r = new Random(11);
    int rows = 6;
    int classes = 4;
    float[] x = gauss(r, rows * classes);
    x[3] = 30f; // large logits stay finite
    x[4] = -30f;
    float[] t = new float[rows * classes];
    for (int i = 0; i < t.length; i++) {
      t[i] = r.nextBoolean() ? 1f : 0f;
    }
    java.util.Arrays.fill(t, 2 * classes, 3 * classes, -1f); // row 2 unlabelled
    t[5] = -1f; // one unknown element
    for (Backend b : new Backend[] {cpu, new CheckingBackend(cpu)}) {
      FloatTensor tx = up(b, x);
      FloatTensor tt = up(b, t);
      FloatTensor tp = b.allocFloat(rows * classes);
      FloatTensor td = b.allocFloat(rows * classes);
      double loss = b.sigmoidCrossEntropy(tx, rows, classes, tt, tp, td, 0.5f);
      double[] xd = d(x);
      assertThat(loss).isCloseTo(bce(xd, t), within(1e-9));
      float[] p = down(b, tp);
      float[] g = down(b, td);
      double[] num = numeric(xd, v -> 0.5 * bce(v, t));
      close(g, num, 1e-5, "dLogits");
      for (int i = 0; i < p.length; i++) {
        assertThat((double) p[i]).isCloseTo(1 / (1 + Math.exp(-xd[i])), within(1e-7));
      }
      int exact = 0;
      for (int row = 0; row < rows; row++) {
        boolean known = false;
        boolean ok = true;
        for (int c = 0; c < classes; c++) {
          int o = row * classes + c;
          if (t[o] >= 0) {
            known = true;
            ok &= (x[o] >= 0) == (t[o] == 1f);
          }
        }
        exact += known && ok ? 1 : 0;
      }
      assertThat(b.countExactMatches(tp, rows, classes, tt)).isEqualTo(exact);
      LossReadback lr = b.sigmoidCrossEntropyDeferred(tx, rows, classes, tt, tp, td, 0.5f);
      assertThat(lr.lossSum()).isEqualTo(loss);
      assertThat(lr.correct()).isEqualTo(exact);
      for (FloatTensor v : new FloatTensor[] {tx, tt, tp, td}) {
        b.free(v);
      }
      b.close();
    }
  }

  // ---- L2 row normalisation ----

  private static double l2Objective(double[] x, float[] g, int rows, int dim, double eps) {
    double s = 0;
    for (int i = 0; i < rows; i++) {
      double n = 0;
      for (int c = 0; c < dim; c++) {
        n += x[i * dim + c] * x[i * dim + c];
      }
      double m = Math.max(Math.sqrt(n), eps);
      for (int c = 0; c < dim; c++) {
        s += x[i * dim + c] / m * g[i * dim + c];
      }
    }
    return s;
  }

  @Test
  void l2NormalizationAndItsGradient() {
    Random r = new Random(13);
    int rows = 4;
    int dim = 5;
    float eps = 1e-3f;
    float[] x = gauss(r, rows * dim);
    java.util.Arrays.fill(x, dim, 2 * dim, 0f); // a zero row: clamped by eps
    x[2 * dim] = 1e-4f; // a tiny row: clamped too
    for (int c = 1; c < dim; c++) {
      x[2 * dim + c] = 0f;
    }
    float[] g = gauss(r, rows * dim);
    float[] dx0 = gauss(r, rows * dim);
    for (Backend b : new Backend[] {cpu, new CheckingBackend(cpu)}) {
      FloatTensor tx = up(b, x);
      FloatTensor ty = b.allocFloat(rows * dim);
      FloatTensor tg = up(b, g);
      FloatTensor tdx = up(b, dx0);
      b.l2NormalizeRows(FloatView.of(tx), rows, dim, eps, FloatView.of(ty));
      b.l2NormalizeRowsBackward(
          FloatView.of(tx), FloatView.of(ty), rows, dim, eps, FloatView.of(tg), FloatView.of(tdx));
      float[] y = down(b, ty);
      double[] xd = d(x);
      for (int i = 0; i < rows; i++) {
        double n = 0;
        for (int c = 0; c < dim; c++) {
          n += xd[i * dim + c] * xd[i * dim + c];
        }
        double m = Math.max(Math.sqrt(n), eps);
        for (int c = 0; c < dim; c++) {
          assertThat((double) y[i * dim + c]).isCloseTo(xd[i * dim + c] / m, within(1e-6));
        }
      }
      double[] num = new double[rows * dim];
      double h = 1e-7; // smaller than the tiny row's distance to the clamp
      for (int i = 0; i < num.length; i++) {
        double v = xd[i];
        xd[i] = v + h;
        double up = l2Objective(xd, g, rows, dim, eps);
        xd[i] = v - h;
        double dn = l2Objective(xd, g, rows, dim, eps);
        xd[i] = v;
        num[i] = (up - dn) / (2 * h);
      }
      close(minus(down(b, tdx), dx0), num, 2e-3, "dx");
      for (FloatTensor t : new FloatTensor[] {tx, ty, tg, tdx}) {
        b.free(t);
      }
      b.close();
    }
  }
}
