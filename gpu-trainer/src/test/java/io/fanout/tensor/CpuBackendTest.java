package io.fanout.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class CpuBackendTest {
  private final HostOps be = HostOps.CPU;

  private static float[] rand(int n, long key) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = CounterRng.uniform(key, i) * 2f - 1f;
    }
    return a;
  }

  @Test
  void gemmMatchesNaiveForAllTransposes() {
    int m = 7;
    int n = 5;
    int k = 9;
    for (int ta = 0; ta < 2; ta++) {
      for (int tb = 0; tb < 2; tb++) {
        float[] a = rand(m * k + 3, 1);
        float[] b = rand(k * n + 2, 2);
        float[] c = rand(m * n + 4, 3);
        float[] ref = c.clone();
        for (int i = 0; i < m; i++) {
          for (int j = 0; j < n; j++) {
            double s = 0;
            for (int p = 0; p < k; p++) {
              float av = ta == 1 ? a[3 + p * m + i] : a[3 + i * k + p];
              float bv = tb == 1 ? b[2 + j * k + p] : b[2 + p * n + j];
              s += av * bv;
            }
            ref[4 + i * n + j] = (float) (0.5 * s + 2.0 * ref[4 + i * n + j]);
          }
        }
        be.gemm(ta == 1, tb == 1, m, n, k, 0.5f, a, 3, b, 2, 2f, c, 4);
        for (int i = 0; i < c.length; i++) {
          assertThat(c[i]).as("ta=%d tb=%d i=%d", ta, tb, i).isCloseTo(ref[i], within(1e-4f));
        }
      }
    }
  }

  @Test
  void aggregateMeanAndSumWithSelfWeight() {
    int[] indptr = {0, 2, 2, 3};
    int[] indices = {1, 3, 0};
    float[] src = {1, 2, 3, 4, 5, 6, 7, 8};
    float[] out = new float[6];
    be.aggregate(Aggregation.MEAN, indptr, indices, 3, 0, src, 2, out);
    assertThat(out).containsExactly(5, 6, 0, 0, 1, 2);
    be.aggregate(Aggregation.SUM, indptr, indices, 3, 1, src, 2, out);
    assertThat(out).containsExactly(11, 14, 3, 4, 6, 8);
    be.aggregate(Aggregation.MEAN, indptr, indices, 3, 1, src, 2, out);
    assertThat(out[0]).isCloseTo(11f / 3, within(1e-6f));
    assertThat(out[2]).isEqualTo(3f);
    assertThat(out[4]).isEqualTo(3f);
    // Backward is the adjoint: <agg(x), g> == <x, aggT(g)>.
    float[] g = {0.5f, -1f, 2f, 1f, -3f, 0.25f};
    for (int self = 0; self < 2; self++) {
      for (Aggregation mode : Aggregation.values()) {
        be.aggregate(mode, indptr, indices, 3, self, src, 2, out);
        float[] dsrc = new float[8];
        be.aggregateBackward(mode, indptr, indices, 3, self, g, 2, dsrc);
        double lhs = 0;
        double rhs = 0;
        for (int i = 0; i < 6; i++) {
          lhs += out[i] * g[i];
        }
        for (int i = 0; i < 8; i++) {
          rhs += src[i] * dsrc[i];
        }
        assertThat(lhs).isCloseTo(rhs, within(1e-4));
      }
    }
  }

  @Test
  void dropoutIsDeterministicAndUnbiased() {
    int n = 200_000;
    float[] x = new float[n];
    java.util.Arrays.fill(x, 1f);
    float[] y = x.clone();
    be.dropout(x, n, 0.3f, 42);
    be.dropout(y, n, 0.3f, 42);
    assertThat(x).isEqualTo(y);
    double sum = 0;
    int zeros = 0;
    for (float v : x) {
      sum += v;
      zeros += v == 0f ? 1 : 0;
    }
    assertThat(sum / n).isCloseTo(1.0, within(0.01));
    assertThat(zeros / (double) n).isCloseTo(0.3, within(0.01));
  }

  @Test
  void softmaxCrossEntropyMatchesDefinition() {
    float[] logits = {1f, 2f, 3f, 0f, 0f, 0f};
    float[] probs = new float[6];
    float[] d = new float[6];
    double loss = be.softmaxCrossEntropy(logits, 2, 3, new int[] {2, -1}, probs, d, 1f);
    double z = Math.exp(1) + Math.exp(2) + Math.exp(3);
    assertThat(loss).isCloseTo(-Math.log(Math.exp(3) / z), within(1e-5));
    assertThat(probs[3]).isCloseTo(1f / 3, within(1e-6f));
    assertThat(d[2]).isCloseTo((float) (Math.exp(3) / z - 1), within(1e-6f));
    assertThat(d[4]).isZero();
  }

  @Test
  void adamFirstStepMovesByLr() {
    float[] p = {1f, -1f};
    float[] g = {0.3f, -5f};
    be.adam(p, g, new float[2], new float[2], 2, 0.1f, 0.9f, 0.999f, 1e-8f, 0f, 1);
    assertThat(p[0]).isCloseTo(0.9f, within(1e-5f));
    assertThat(p[1]).isCloseTo(-0.9f, within(1e-5f));
  }

  @Test
  void selectsCpuWithoutOtherProviders() {
    assertThat(Backends.select().name()).startsWith("cpu(");
  }

  @Test
  void columnParallelAggregationIsBitIdenticalToSerial() {
    int rows = 3000;
    int src = 5000;
    int cols = 300;
    int[] indptr = new int[rows + 1];
    int[] idx = new int[rows * 4];
    for (int i = 0; i < rows; i++) {
      for (int d = 0; d < 4; d++) {
        idx[i * 4 + d] = (int) (CounterRng.uniform(7, i * 4L + d) * src);
      }
      indptr[i + 1] = (i + 1) * 4;
    }
    float[] x = rand(src * cols, 8);
    float[] g = rand(rows * cols, 9);
    float[] par = new float[rows * cols];
    float[] ser = new float[rows * cols];
    be.aggregate(Aggregation.MEAN, indptr, idx, rows, 1, x, cols, par);
    float[] dPar = new float[src * cols];
    be.aggregateBackward(Aggregation.MEAN, indptr, idx, rows, 1, g, cols, dPar);
    // Serial reference: one column range covering everything.
    ColumnParallel.Range fwd =
        (c0, c1) -> {
          for (int i = 0; i < rows; i++) {
            for (int j = c0; j < c1; j++) {
              float acc = x[i * cols + j];
              for (int q = indptr[i]; q < indptr[i + 1]; q++) {
                acc += x[idx[q] * cols + j];
              }
              ser[i * cols + j] = acc * (1f / (indptr[i + 1] - indptr[i] + 1));
            }
          }
        };
    fwd.run(0, cols);
    assertThat(par).isEqualTo(ser);
    float[] dSer = new float[src * cols];
    for (int i = 0; i < rows; i++) {
      float w = 1f / (indptr[i + 1] - indptr[i] + 1);
      for (int j = 0; j < cols; j++) {
        dSer[i * cols + j] += w * g[i * cols + j];
      }
      for (int q = indptr[i]; q < indptr[i + 1]; q++) {
        for (int j = 0; j < cols; j++) {
          dSer[idx[q] * cols + j] += w * g[i * cols + j];
        }
      }
    }
    assertThat(dPar).isEqualTo(dSer);
  }
}
