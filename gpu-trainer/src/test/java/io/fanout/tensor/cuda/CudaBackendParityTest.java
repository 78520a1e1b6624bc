package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.tensor.Activation;
import io.fanout.tensor.Aggregation;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import java.util.Random;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every CUDA backend operation against the CPU backend on random inputs: relative error (max
 * absolute difference over max magnitude) at most 1e-5, dropout masks bit-identical, and no device
 * memory leaked. Skipped, with the reason printed, where no CUDA device exists.
 */
@Tag("gpu")
class CudaBackendParityTest {
  private static final double TOL = 1e-5;
  private static CudaBackend gpu;
  private final CpuBackend cpu = new CpuBackend();
  private final Random r = new Random(42);

  @BeforeEach
  void open() {
    GpuTests.assumeDevice();
    if (gpu == null) {
      gpu = new CudaBackend(-1);
      System.out.println("backend: " + gpu.name());
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

  /** Runs {@code op} on both backends over copies of the same inputs; compares every output. */
  private void both(float[][] f, int[][] ints, BiConsumer<Backend, Object[]> op, boolean exact) {
    float[][] outCpu = run(cpu, f, ints, op);
    float[][] outGpu = run(gpu, f, ints, op);
    for (int k = 0; k < f.length; k++) {
      if (exact) {
        assertThat(outGpu[k]).as("operand %d", k).containsExactly(outCpu[k]);
      } else {
        assertThat(relError(outGpu[k], outCpu[k])).as("operand %d", k).isLessThanOrEqualTo(TOL);
      }
    }
  }

  private static float[][] run(
      Backend b, float[][] f, int[][] ints, BiConsumer<Backend, Object[]> op) {
    Object[] t = new Object[f.length + ints.length];
    for (int k = 0; k < f.length; k++) {
      FloatTensor x = b.allocFloat(f[k].length);
      b.upload(f[k], 0, x, 0, f[k].length);
      t[k] = x;
    }
    for (int k = 0; k < ints.length; k++) {
      IntTensor x = b.allocInt(ints[k].length);
      b.upload(ints[k], 0, x, 0, ints[k].length);
      t[f.length + k] = x;
    }
    op.accept(b, t);
    float[][] out = new float[f.length][];
    for (int k = 0; k < f.length; k++) {
      out[k] = new float[f[k].length];
      b.download((FloatTensor) t[k], 0, out[k], 0, out[k].length);
    }
    for (Object x : t) {
      b.free((io.fanout.tensor.Tensor) x);
    }
    return out;
  }

  static double relError(float[] got, float[] want) {
    double diff = 0;
    double mag = 1e-30;
    for (int i = 0; i < want.length; i++) {
      diff = Math.max(diff, Math.abs((double) got[i] - want[i]));
      mag = Math.max(mag, Math.abs((double) want[i]));
    }
    return diff / mag;
  }

  private float[] rnd(int n) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) r.nextGaussian();
    }
    return a;
  }

  private static FloatTensor ft(Object o) {
    return (FloatTensor) o;
  }

  private static IntTensor it(Object o) {
    return (IntTensor) o;
  }

  @Test
  void gemmAllTransposes() {
    int m = 67;
    int n = 45;
    int k = 130;
    for (boolean ta : new boolean[] {false, true}) {
      for (boolean tb : new boolean[] {false, true}) {
        for (float beta : new float[] {0f, 0.5f}) {
          both(
              new float[][] {rnd(m * k + 3), rnd(k * n + 5), rnd(m * n + 2)},
              new int[0][],
              (b, t) -> b.gemm(ta, tb, m, n, k, 1.5f, ft(t[0]), 3, ft(t[1]), 5, beta, ft(t[2]), 2),
              false);
        }
      }
    }
  }

  @Test
  void gemmSplitsALongKOverSlicesAndSumsThemInOrder() {
    int m = 100;
    int n = 70;
    int k = 6000; // 4 output tiles: split into 11 slices on 132 multiprocessors
    for (boolean ta : new boolean[] {false, true}) {
      for (float beta : new float[] {0f, 0.5f}) {
        float[][] in = {rnd(m * k), rnd(k * n), rnd(m * n)};
        both(
            in,
            new int[0][],
            (b, t) ->
                b.gemm(ta, false, m, n, k, 0.75f, ft(t[0]), 0, ft(t[1]), 0, beta, ft(t[2]), 0),
            false);
        float[] again = new float[m * n];
        float[] first = new float[m * n];
        for (float[] out : new float[][] {first, again}) {
          FloatTensor a = gpu.allocFloat(m * k);
          FloatTensor b = gpu.allocFloat(k * n);
          FloatTensor c = gpu.allocFloat(m * n);
          gpu.upload(in[0], 0, a, 0, m * k);
          gpu.upload(in[1], 0, b, 0, k * n);
          gpu.upload(in[2], 0, c, 0, m * n);
          gpu.gemm(ta, false, m, n, k, 0.75f, a, 0, b, 0, beta, c, 0);
          gpu.download(c, 0, out, 0, m * n);
          gpu.free(a);
          gpu.free(b);
          gpu.free(c);
        }
        assertThat(again).as("deterministic").containsExactly(first);
      }
    }
  }

  @Test
  void elementwiseOps() {
    both(
        new float[][] {rnd(300), rnd(300)},
        new int[0][],
        (b, t) -> {
          b.axpy(200, 0.7f, ft(t[0]), 10, ft(t[1]), 50);
          b.scale(100, -1.25f, ft(t[1]), 7);
          b.copy(ft(t[0]), 0, ft(t[1]), 250, 40);
          b.copy2d(10, 6, ft(t[0]), 3, 20, ft(t[1]), 1, 9);
          b.zero(ft(t[0]), 5, 17);
        },
        true);
  }

  @Test
  void biasActivationsAndBackward() {
    int rows = 1000;
    int cols = 37;
    for (Activation act : Activation.values()) {
      both(
          new float[][] {rnd(rows * cols + 4), rnd(cols + 1), rnd(rows * cols), rnd(cols)},
          new int[0][],
          (b, t) -> {
            b.addBias(ft(t[0]), 4, rows, cols, ft(t[1]), 1);
            b.activate(act, ft(t[0]), 4, rows * cols);
            b.activateBackward(act, ft(t[0]), 4, ft(t[2]), 0, rows * cols);
            b.biasGrad(ft(t[2]), 0, rows, cols, ft(t[3]), 0);
          },
          false);
    }
  }

  @Test
  void biasGradOfShortMatricesIsTheCpusAndOfTallOnesIsChunkedAndDeterministic() {
    int cols = 70;
    both(
        new float[][] {rnd(300 * cols), rnd(cols)},
        new int[0][],
        (b, t) -> b.biasGrad(ft(t[0]), 0, 300, cols, ft(t[1]), 0),
        true);
    int rows = 140_000;
    float[][] in = {rnd(rows * cols), rnd(cols)};
    // The CPU's one long chain of float adds is itself off by ~1e-5 here; judge both by the sum
    // in double precision.
    float[] exact = new float[cols];
    for (int j = 0; j < cols; j++) {
      double g = in[1][j];
      for (int r = 0; r < rows; r++) {
        g += in[0][r * cols + j];
      }
      exact[j] = (float) g;
    }
    float[] first = new float[cols];
    float[] again = new float[cols];
    for (float[] out : new float[][] {first, again}) {
      FloatTensor dy = gpu.allocFloat(rows * cols);
      FloatTensor g = gpu.allocFloat(cols);
      gpu.upload(in[0], 0, dy, 0, rows * cols);
      gpu.upload(in[1], 0, g, 0, cols);
      gpu.biasGrad(dy, 0, rows, cols, g, 0);
      gpu.download(g, 0, out, 0, cols);
      gpu.free(dy);
      gpu.free(g);
    }
    assertThat(again).as("deterministic").containsExactly(first);
    float[] cpuOut = in[1].clone();
    FloatTensor dy = cpu.allocFloat(rows * cols);
    FloatTensor g = cpu.allocFloat(cols);
    cpu.upload(in[0], 0, dy, 0, rows * cols);
    cpu.upload(cpuOut, 0, g, 0, cols);
    cpu.biasGrad(dy, 0, rows, cols, g, 0);
    cpu.download(g, 0, cpuOut, 0, cols);
    assertThat(relError(first, exact)).isLessThanOrEqualTo(TOL);
    assertThat(relError(first, exact)).isLessThanOrEqualTo(relError(cpuOut, exact));
  }

  @Test
  void dropoutMasksAreBitIdentical() {
    both(
        new float[][] {rnd(100_003)},
        new int[0][],
        (b, t) -> b.dropout(ft(t[0]), 3, 100_000, 0.37f, 0x9e3779b97f4a7c15L),
        true);
    int rows = 50;
    int cols = 80;
    int[] ptr = new int[rows + 1];
    int[] col = new int[rows * 10];
    for (int i = 0; i < rows; i++) {
      for (int d = 0; d < 10; d++) {
        col[i * 10 + d] = d * 8 + r.nextInt(8);
      }
      ptr[i + 1] = ptr[i] + 10;
    }
    both(
        new float[][] {rnd(col.length)},
        new int[][] {ptr, col},
        (b, t) -> b.dropoutCsr(it(t[1]), it(t[2]), ft(t[0]), rows, cols, 0.5f, -12345L),
        true);
  }

  @Test
  void aggregationAndBackward() {
    int rows = 300;
    int srcRows = 900;
    int cols = 33;
    int[] indptr = new int[rows + 2];
    int[] indices = new int[rows * 15 + 4];
    indptr[0] = 0;
    for (int i = 0; i < rows; i++) {
      int deg = r.nextInt(15);
      for (int d = 0; d < deg; d++) {
        indices[4 + indptr[i] + d] = r.nextInt(srcRows);
      }
      indptr[i + 1] = indptr[i] + deg;
    }
    for (Aggregation mode : Aggregation.values()) {
      for (int self = 0; self <= 1; self++) {
        int s = self;
        both(
            new float[][] {
              rnd(srcRows * cols), rnd(rows * cols), rnd(rows * cols), rnd(srcRows * cols)
            },
            new int[][] {indptr, indices},
            (b, t) -> {
              b.aggregate(mode, it(t[4]), 0, it(t[5]), 4, rows, s, ft(t[0]), 0, cols, ft(t[1]), 0);
              b.aggregateBackward(
                  mode, it(t[4]), 0, it(t[5]), 4, rows, s, ft(t[2]), 0, cols, ft(t[3]), 0);
            },
            true);
      }
    }
  }

  @Test
  void spmmAndTranspose() {
    int rows = 200;
    int featCols = 500;
    int n = 24;
    int[] ptr = new int[rows + 1];
    int[] col = new int[rows * 20];
    for (int i = 0; i < rows; i++) {
      int nz = r.nextInt(20);
      for (int d = 0; d < nz; d++) {
        col[ptr[i] + d] = r.nextInt(featCols);
      }
      ptr[i + 1] = ptr[i] + nz;
    }
    for (float beta : new float[] {0f, 1f, 0.25f}) {
      both(
          new float[][] {
            rnd(col.length), rnd(featCols * n + 2), rnd(rows * n), rnd(rows * n), rnd(featCols * n)
          },
          new int[][] {ptr, col},
          (b, t) -> {
            b.spmm(it(t[5]), it(t[6]), ft(t[0]), rows, ft(t[1]), 2, n, beta, ft(t[2]), 0);
            b.spmmTransposed(it(t[5]), it(t[6]), ft(t[0]), rows, ft(t[3]), 0, n, ft(t[4]), 0);
          },
          false);
    }
  }

  @Test
  void softmaxCrossEntropyAndAccuracy() {
    int rows = 777;
    int classes = 13;
    int[] labels = new int[rows];
    for (int i = 0; i < rows; i++) {
      labels[i] = i % 9 == 0 ? -1 : r.nextInt(classes);
    }
    double[] loss = new double[2];
    int[] correct = new int[2];
    both(
        new float[][] {rnd(rows * classes), new float[rows * classes], new float[rows * classes]},
        new int[][] {labels},
        (b, t) -> {
          int k = b == cpu ? 0 : 1;
          loss[k] =
              b.softmaxCrossEntropy(ft(t[0]), rows, classes, it(t[3]), ft(t[1]), ft(t[2]), 0.01f);
          correct[k] = b.countCorrect(ft(t[0]), rows, classes, it(t[3]));
        },
        false);
    assertThat(Math.abs(loss[1] - loss[0]) / Math.abs(loss[0])).isLessThanOrEqualTo(TOL);
    assertThat(correct[1]).isEqualTo(correct[0]);
  }

  /**
   * The deferred loss and count equal the synchronous ones bit for bit, also with more read-backs
   * outstanding than there are pinned slots, read newest first (a slot's value is kept when the
   * slot is reused).
   */
  @Test
  void deferredLossReadbacksEqualTheSynchronousOnes() {
    int rows = 501;
    int classes = 7;
    int rounds = LossReadbacks.SLOTS * 2 + 3;
    double[] loss = new double[rounds];
    int[] correct = new int[rounds];
    io.fanout.tensor.LossReadback[] later = new io.fanout.tensor.LossReadback[rounds];
    try (FloatTensor logits = gpu.allocFloat(rows * classes);
        FloatTensor probs = gpu.allocFloat(rows * classes);
        FloatTensor grad = gpu.allocFloat(rows * classes);
        IntTensor labels = gpu.allocInt(rows)) {
      for (int k = 0; k < rounds; k++) {
        int[] y = new int[rows];
        for (int i = 0; i < rows; i++) {
          y[i] = i % (k + 2) == 0 ? -1 : r.nextInt(classes);
        }
        gpu.upload(y, 0, labels, 0, rows);
        gpu.upload(rnd(rows * classes), 0, logits, 0, rows * classes);
        loss[k] = gpu.softmaxCrossEntropy(logits, rows, classes, labels, probs, grad, 0.5f);
        correct[k] = gpu.countCorrect(probs, rows, classes, labels);
        later[k] =
            gpu.softmaxCrossEntropyDeferred(logits, rows, classes, labels, probs, grad, 0.5f);
      }
      for (int k = rounds - 1; k >= 0; k--) {
        assertThat(later[k].lossSum()).as("round %d", k).isEqualTo(loss[k]);
        assertThat(later[k].correct()).as("round %d", k).isEqualTo(correct[k]);
      }
    }
  }

  /** Row normalization on the device equals the host's bit for bit, zero and sparse rows too. */
  @Test
  void normalizedRowsEqualTheHostsBitForBit() {
    int rows = 1031;
    int dim = 100;
    float[] x = rnd(rows * dim);
    for (int r = 0; r < rows; r++) {
      for (int j = 0; j < dim; j++) {
        if (r % 7 == 0 || (r % 3 == 0 && j % 5 != 0)) {
          x[r * dim + j] = 0f; // all-zero and sparse rows
        }
      }
    }
    for (boolean l1 : new boolean[] {false, true}) {
      both(
          new float[][] {x.clone()},
          new int[0][],
          (b, t) -> b.normalizeRows(ft(t[0]), dim, rows - 1, dim, l1),
          true);
    }
  }

  @Test
  void adamSteps() {
    int n = 5000;
    both(
        new float[][] {rnd(n), rnd(n), new float[n], new float[n]},
        new int[0][],
        (b, t) -> {
          for (long step = 1; step <= 3; step++) {
            b.adam(
                ft(t[0]), ft(t[1]), ft(t[2]), ft(t[3]), n, 0.01f, 0.9f, 0.999f, 1e-8f, 5e-4f, step);
          }
        },
        false);
  }
}
