package io.fanout.tensor.cuda;

import static io.fanout.tensor.AttentionFixture.down;
import static io.fanout.tensor.AttentionFixture.up;
import static io.fanout.tensor.cuda.CudaBackendParityTest.relError;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.tensor.AttentionFixture;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.FloatView;
import io.fanout.tensor.LossReadback;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The attention, head-score, sigmoid cross-entropy and L2 normalisation kernels against the CPU
 * backend: relative error at most 1e-5 (only {@code expf} may differ from the CPU's exp by an ulp;
 * the sums run in the CPU's order), bit-identical where no exponential is involved, and no device
 * memory leaked. Skipped, with the reason printed, where no CUDA device exists.
 */
@Tag("gpu")
class AttentionOpsParityTest {
  private static final double TOL = 1e-5;
  private static CudaBackend gpu;
  private final CpuBackend cpu = new CpuBackend();

  @BeforeEach
  void open() {
    GpuTests.assumeDevice();
    if (gpu == null) {
      gpu = new CudaBackend(-1);
    }
  }

  @AfterAll
  static void close() {
    if (gpu != null) {
      gpu.close();
    }
  }

  @AfterEach
  void noLeaks() {
    if (gpu != null) {
      gpu.pool().checkNoLeaks();
    }
  }

  private static void near(float[] got, float[] want, String what) {
    assertThat(got).as(what).hasSize(want.length);
    assertThat(relError(got, want)).as(what).isLessThanOrEqualTo(TOL);
  }

  @Test
  void attentionForwardAndBackwardMatchTheCpu() {
    AttentionFixture[] cases = {
      new AttentionFixture(1, 6, 9, 2, 3, 0, false, 4),
      new AttentionFixture(2, 7, 10, 3, 2, 0, true, 3),
      new AttentionFixture(3, 8, 8, 2, 4, 3, false, 5),
      // several relation chunks (256 rows each), self loops of a relation, GAT-like shapes
      new AttentionFixture(4, 700, 1500, 8, 8, 5, true, 12),
      new AttentionFixture(5, 600, 2000, 1, 16, 0, true, 25),
      withDropout(new AttentionFixture(7, 500, 900, 4, 8, 3, true, 10), 0.5f),
      // Simple-HGN's edge residual, with and without attention dropout
      withResidual(new AttentionFixture(8, 600, 1200, 8, 8, 5, false, 12), 0.05f, 0f),
      withResidual(new AttentionFixture(9, 400, 800, 4, 8, 3, true, 10), 0.3f, 0.5f),
    };
    for (AttentionFixture f : cases) {
      AttentionFixture.Results want = f.run(cpu);
      AttentionFixture.Results got = f.run(gpu);
      near(got.alpha(), want.alpha(), "alpha");
      near(got.out(), want.out(), "out");
      near(got.dz(), want.dz(), "dz");
      near(got.dsDst(), want.dsDst(), "dsDst");
      near(got.dsSrc(), want.dsSrc(), "dsSrc");
      near(got.dsRel(), want.dsRel(), "dsRel");
    }
  }

  private static AttentionFixture withDropout(AttentionFixture f, float p) {
    f.dropout = p;
    return f;
  }

  private static AttentionFixture withResidual(AttentionFixture f, float beta, float p) {
    f.beta = beta;
    f.dropout = p;
    return f;
  }

  /** The residual weights: sums in slot order and one division, so the CPU's bits. */
  @Test
  void residualWeightsMatchTheCpuBitForBit() {
    AttentionFixture f = new AttentionFixture(10, 700, 1500, 8, 4, 5, true, 12);
    Random r = new Random(10);
    int prevSlotCount = f.slots() + 100;
    float[] prev = new float[prevSlotCount * f.heads];
    for (int i = 0; i < prev.length; i++) {
      prev[i] = r.nextFloat();
    }
    int[] prevSlots = new int[f.slots()];
    for (int q = 0; q < prevSlots.length; q++) {
      prevSlots[q] = r.nextInt(4) == 0 ? -1 : r.nextInt(prevSlotCount);
    }
    assertThat(f.residualWeights(gpu, prev, prevSlots))
        .containsExactly(f.residualWeights(cpu, prev, prevSlots));
  }

  @Test
  void attentionIsDeterministic() {
    AttentionFixture f = new AttentionFixture(6, 900, 3000, 4, 8, 4, true, 20);
    AttentionFixture.Results a = f.run(gpu);
    AttentionFixture.Results b = f.run(gpu);
    assertThat(b.out()).containsExactly(a.out());
    assertThat(b.dz()).containsExactly(a.dz());
    assertThat(b.dsSrc()).containsExactly(a.dsSrc());
    assertThat(b.dsRel()).containsExactly(a.dsRel());
  }

  private static float[] gauss(Random r, int n) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) r.nextGaussian();
    }
    return a;
  }

  /** Head scores and their backward: no exponential, so the CPU's bits. */
  @Test
  void headScoresMatchTheCpuBitForBit() {
    Random r = new Random(3);
    int rows = 777;
    int heads = 8;
    int dim = 8;
    float[] z = gauss(r, rows * heads * dim + 3);
    float[] a = gauss(r, heads * dim + 1);
    float[] g = gauss(r, rows * heads);
    float[] dz0 = gauss(r, rows * heads * dim);
    float[] da0 = gauss(r, heads * dim);
    float[][] out = new float[2][];
    float[][] dz = new float[2][];
    float[][] da = new float[2][];
    Backend[] bs = {cpu, gpu};
    for (int k = 0; k < 2; k++) {
      Backend b = bs[k];
      FloatTensor[] t = {
        up(b, z), up(b, a), b.allocFloat(rows * heads), up(b, g), up(b, dz0), up(b, da0)
      };
      b.headScores(
          rows, heads, dim, FloatView.at(t[0], 3), FloatView.at(t[1], 1), FloatView.of(t[2]));
      b.headScoresBackward(
          rows,
          heads,
          dim,
          FloatView.at(t[0], 3),
          FloatView.at(t[1], 1),
          FloatView.of(t[3]),
          FloatView.of(t[4]),
          FloatView.of(t[5]));
      out[k] = down(b, t[2]);
      dz[k] = down(b, t[4]);
      da[k] = down(b, t[5]);
      for (FloatTensor x : t) {
        b.free(x);
      }
    }
    assertThat(out[1]).containsExactly(out[0]);
    assertThat(dz[1]).containsExactly(dz[0]);
    assertThat(da[1]).containsExactly(da[0]);
  }

  @Test
  void l2NormalizationMatchesTheCpuBitForBit() {
    Random r = new Random(4);
    int rows = 513;
    int dim = 64;
    float[] x = gauss(r, rows * dim);
    java.util.Arrays.fill(x, 0, dim, 0f);
    float[] g = gauss(r, rows * dim);
    float[] dx0 = gauss(r, rows * dim);
    float[][] y = new float[2][];
    float[][] dx = new float[2][];
    Backend[] bs = {cpu, gpu};
    for (int k = 0; k < 2; k++) {
      Backend b = bs[k];
      FloatTensor[] t = {up(b, x), b.allocFloat(rows * dim), up(b, g), up(b, dx0)};
      b.l2NormalizeRows(FloatView.of(t[0]), rows, dim, 1e-12f, FloatView.of(t[1]));
      b.l2NormalizeRowsBackward(
          FloatView.of(t[0]),
          FloatView.of(t[1]),
          rows,
          dim,
          1e-12f,
          FloatView.of(t[2]),
          FloatView.of(t[3]));
      y[k] = down(b, t[1]);
      dx[k] = down(b, t[3]);
      for (FloatTensor v : t) {
        b.free(v);
      }
    }
    assertThat(y[1]).containsExactly(y[0]);
    assertThat(dx[1]).containsExactly(dx[0]);
  }

  @Test
  void sigmoidCrossEntropyMatchesTheCpu() {
    Random r = new Random(5);
    int rows = 1000;
    int classes = 7;
    float[] x = gauss(r, rows * classes);
    float[] t = new float[rows * classes];
    for (int i = 0; i < t.length; i++) {
      t[i] = r.nextInt(10) == 0 ? -1f : r.nextBoolean() ? 1f : 0f;
    }
    double[] loss = new double[2];
    int[] exact = new int[2];
    LossReadback[] deferred = new LossReadback[2];
    float[][] p = new float[2][];
    float[][] d = new float[2][];
    Backend[] bs = {cpu, gpu};
    for (int k = 0; k < 2; k++) {
      Backend b = bs[k];
      FloatTensor[] v = {
        up(b, x), up(b, t), b.allocFloat(rows * classes), b.allocFloat(rows * classes)
      };
      loss[k] = b.sigmoidCrossEntropy(v[0], rows, classes, v[1], v[2], v[3], 0.01f);
      exact[k] = b.countExactMatches(v[2], rows, classes, v[1]);
      deferred[k] = b.sigmoidCrossEntropyDeferred(v[0], rows, classes, v[1], v[2], v[3], 0.01f);
      p[k] = down(b, v[2]);
      d[k] = down(b, v[3]);
      assertThat(deferred[k].lossSum())
          .isCloseTo(loss[k], org.assertj.core.api.Assertions.within(1e-9 * Math.abs(loss[k])));
      assertThat(deferred[k].correct()).isEqualTo(exact[k]);
      for (FloatTensor u : v) {
        b.free(u);
      }
    }
    assertThat(Math.abs(loss[1] - loss[0]) / Math.abs(loss[0])).isLessThan(1e-9);
    assertThat(exact[1]).isEqualTo(exact[0]);
    near(p[1], p[0], "probs");
    near(d[1], d[0], "dLogits");
  }
}
