package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.tensor.Backend;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.FloatTensor;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Dense products through the machine's cuBLAS: it loads where a GPU is, its row-major products
 * match the CPU backend for every transpose combination and odd shapes and offsets, the same inputs
 * give the same bits, and no device memory leaks. The own SGEMM kernel, the fallback, is held to
 * the same on a second backend with cuBLAS turned off. Skipped, with the reason printed, where no
 * CUDA device exists.
 */
@Tag("gpu")
class CublasGemmGpuTest {
  private static final double TOL = 1e-5;
  private static final int[][] SHAPES = { // m, n, k
    {1, 1, 1}, {67, 45, 130}, {5, 300, 7}, {257, 3, 1031}, {4099, 256, 100}, {100, 70, 6000}
  };
  private static CudaBackend gpu;
  private static CudaBackend ownSgemm;
  private final CpuBackend cpu = new CpuBackend();
  private final Random r = new Random(7);

  @BeforeEach
  void open() {
    GpuTests.assumeDevice();
    if (gpu == null) {
      gpu = new CudaBackend(-1);
      System.out.println("backend: " + gpu.name() + ", library: " + CublasLibrary.binding().name());
      System.setProperty(CublasLibrary.LIBRARY_PROPERTY, CublasLibrary.NONE);
      try {
        ownSgemm = new CudaBackend(-1);
      } finally {
        System.clearProperty(CublasLibrary.LIBRARY_PROPERTY);
      }
    }
  }

  @AfterAll
  static void close() {
    for (CudaBackend be : new CudaBackend[] {ownSgemm, gpu}) {
      if (be != null) {
        be.close();
      }
    }
  }

  @AfterEach
  void noLeaks() {
    for (CudaBackend be : new CudaBackend[] {gpu, ownSgemm}) {
      if (be != null) {
        be.pool().checkNoLeaks();
      }
    }
  }

  @Test
  void cublasLoadsOnTheGpuMachine() {
    assertThat(gpu.usesCublas()).as(CublasLibrary.binding().failure()).isTrue();
    assertThat(gpu.name()).contains("cuBLAS");
    assertThat(ownSgemm.usesCublas()).isFalse();
  }

  @Test
  void productsMatchTheCpuBackendForEveryTransposeAndShape() {
    for (int[] s : SHAPES) {
      for (boolean ta : new boolean[] {false, true}) {
        for (boolean tb : new boolean[] {false, true}) {
          for (float beta : new float[] {0f, 0.5f}) {
            Case c = new Case(ta, tb, s[0], s[1], s[2], beta);
            float[] want = c.product(cpu);
            for (CudaBackend be : new CudaBackend[] {gpu, ownSgemm}) {
              double err = CudaBackendParityTest.relError(c.product(be), want);
              assertThat(err).as("%s on %s", c, be.name()).isLessThanOrEqualTo(TOL);
            }
          }
        }
      }
    }
  }

  @Test
  void theSameInputsGiveTheSameBits() {
    for (int[] s : SHAPES) {
      for (boolean ta : new boolean[] {false, true}) {
        for (boolean tb : new boolean[] {false, true}) {
          Case c = new Case(ta, tb, s[0], s[1], s[2], 0.5f);
          for (CudaBackend be : new CudaBackend[] {gpu, ownSgemm}) {
            float[] first = c.product(be);
            assertThat(c.product(be)).as("%s on %s", c, be.name()).containsExactly(first);
          }
        }
      }
    }
  }

  /**
   * {@code --precision tf32|bf16}: cuBLAS rounds the operands for the tensor cores and accumulates
   * in fp32: within the precision's rounding of the CPU's fp32 product (2^-10 relative for TF32's
   * 10-bit mantissa, 2^-7 for bfloat16's, times a margin for the sum), the same bits on repeat, and
   * back to fp32 bit for bit afterwards; the own SGEMM refuses them.
   */
  @Test
  void tensorCorePrecisionsStayWithinTheirRoundingAndRepeat() {
    Case c = new Case(false, true, 4099, 256, 200, 0.5f);
    float[] want = c.product(cpu);
    float[] fp32 = c.product(gpu);
    try {
      for (io.fanout.tensor.MatmulPrecision p :
          new io.fanout.tensor.MatmulPrecision[] {
            io.fanout.tensor.MatmulPrecision.TF32, io.fanout.tensor.MatmulPrecision.BF16
          }) {
        gpu.matmulPrecision(p);
        float[] first = c.product(gpu);
        double tol = p == io.fanout.tensor.MatmulPrecision.TF32 ? 8e-3 : 4e-2;
        assertThat(CudaBackendParityTest.relError(first, want)).as("%s", p).isLessThan(tol);
        assertThat(c.product(gpu)).as("%s repeats", p).containsExactly(first);
      }
    } finally {
      gpu.matmulPrecision(io.fanout.tensor.MatmulPrecision.FP32);
    }
    assertThat(c.product(gpu)).as("fp32 again").containsExactly(fp32);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ownSgemm.matmulPrecision(io.fanout.tensor.MatmulPrecision.TF32))
        .hasMessageContaining("--precision tf32")
        .hasMessageContaining("cuBLAS");
  }

  /**
   * One product {@code C = 1.25 op(A) op(B) + beta C} on random inputs, each operand at an odd
   * offset inside its tensor (so device addresses carry a byte offset).
   */
  private final class Case {
    private static final int A_OFF = 3;
    private static final int B_OFF = 5;
    private static final int C_OFF = 2;
    private final boolean ta;
    private final boolean tb;
    private final int m;
    private final int n;
    private final int k;
    private final float beta;
    private final float[] a;
    private final float[] b;
    private final float[] c;

    Case(boolean ta, boolean tb, int m, int n, int k, float beta) {
      this.ta = ta;
      this.tb = tb;
      this.m = m;
      this.n = n;
      this.k = k;
      this.beta = beta;
      a = rnd(A_OFF + m * k);
      b = rnd(B_OFF + k * n);
      c = rnd(C_OFF + m * n);
    }

    float[] product(Backend be) {
      FloatTensor ta0 = be.allocFloat(a.length);
      FloatTensor tb0 = be.allocFloat(b.length);
      FloatTensor tc0 = be.allocFloat(c.length);
      try {
        be.upload(a, 0, ta0, 0, a.length);
        be.upload(b, 0, tb0, 0, b.length);
        be.upload(c, 0, tc0, 0, c.length);
        be.gemm(ta, tb, m, n, k, 1.25f, ta0, A_OFF, tb0, B_OFF, beta, tc0, C_OFF);
        float[] out = new float[c.length];
        be.download(tc0, 0, out, 0, out.length);
        return out;
      } finally {
        be.free(ta0);
        be.free(tb0);
        be.free(tc0);
      }
    }

    @Override
    public String toString() {
      return "transA=" + ta + " transB=" + tb + " m=" + m + " n=" + n + " k=" + k + " beta=" + beta;
    }
  }

  private float[] rnd(int len) {
    float[] x = new float[len];
    for (int i = 0; i < len; i++) {
      x[i] = (float) r.nextGaussian();
    }
    return x;
  }
}
