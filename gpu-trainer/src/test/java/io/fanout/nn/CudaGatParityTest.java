package io.fanout.nn;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.GpuTests;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A gat model's training forward and backward on the CUDA backend against the CPU backend, with one
 * or two averaged output heads, with and without the residual, on dense and sparse inputs, dropout
 * on: logits and every parameter's gradient within 1e-4 of the largest magnitude. Skipped, with the
 * reason printed, where no CUDA device exists.
 */
@Tag("gpu")
class CudaGatParityTest {
  private static final double TOL = 1e-4;

  /** {logits, gradients} of one training step of {@code cfg} on {@code be}. */
  private static float[][] step(ModelConfig cfg, Backend be, boolean sparse) {
    Block[] b = GradientCheckTest.blocks();
    float[] x = new float[16 * cfg.inDim()];
    for (int i = 0; i < x.length; i++) {
      float u = CounterRng.uniform(5, i);
      x[i] = sparse ? (u < 0.03f ? 1f + CounterRng.uniform(6, i) : 0f) : 2f * u - 1f;
    }
    try (GnnModel m = new GnnModel(cfg, be)) {
      m.allowSparseInput(sparse);
      m.init(3);
      float[] logits = m.forward(b, x, true, 77).clone();
      float[] probs = new float[12];
      float[] d = new float[12];
      GradientCheckTest.sce(
          java.util.Arrays.copyOf(logits, 12), 4, 3, new int[] {0, 2, 1, 1}, probs, d);
      m.zeroGrad();
      m.backward(d);
      return new float[][] {java.util.Arrays.copyOf(logits, 12), m.grads()};
    }
  }

  private static void close(float[] got, float[] want, String what) {
    double max = 0;
    double diff = 0;
    for (int i = 0; i < want.length; i++) {
      max = Math.max(max, Math.abs(want[i]));
      diff = Math.max(diff, Math.abs(got[i] - want[i]));
    }
    assertThat(max).as(what).isGreaterThan(1e-3);
    assertThat(diff / max).as(what).isLessThanOrEqualTo(TOL);
  }

  @Test
  void gatStepsMatchTheCpu() {
    GpuTests.assumeDevice();
    try (CudaBackend gpu = new CudaBackend(-1)) {
      for (int outHeads : new int[] {1, 2}) {
        for (boolean residual : new boolean[] {false, true}) {
          for (boolean sparse : new boolean[] {false, true}) {
            ModelConfig cfg = GradientCheckTest.config("gat", 40, 0.3f, "elu", outHeads, residual);
            float[][] want = step(cfg, new CpuBackend(), sparse);
            float[][] got = step(cfg, gpu, sparse);
            String what = cfg.attention() + (sparse ? ", sparse" : ", dense");
            close(got[0], want[0], what + " logits");
            close(got[1], want[1], what + " gradients");
          }
        }
      }
      gpu.pool().checkNoLeaks();
    }
  }
}
