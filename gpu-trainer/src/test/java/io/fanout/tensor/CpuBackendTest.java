package io.fanout.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class CpuBackendTest {
  private final CpuBackend be = new CpuBackend();

  private FloatTensor w(float[] a) {
    return be.wrap(a);
  }

  private IntTensor w(int[] a) {
    return be.wrap(a);
  }

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
        be.gemm(ta == 1, tb == 1, m, n, k, 0.5f, w(a), 3, w(b), 2, 2f, w(c), 4);
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
    be.aggregate(Aggregation.MEAN, w(indptr), 0, w(indices), 0, 3, 0, w(src), 0, 2, w(out), 0);
    assertThat(out).containsExactly(5, 6, 0, 0, 1, 2);
    be.aggregate(Aggregation.SUM, w(indptr), 0, w(indices), 0, 3, 1, w(src), 0, 2, w(out), 0);
    assertThat(out).containsExactly(11, 14, 3, 4, 6, 8);
    be.aggregate(Aggregation.MEAN, w(indptr), 0, w(indices), 0, 3, 1, w(src), 0, 2, w(out), 0);
    assertThat(out[0]).isCloseTo(11f / 3, within(1e-6f));
    assertThat(out[2]).isEqualTo(3f);
    assertThat(out[4]).isEqualTo(3f);
    // Backward is the adjoint: <agg(x), g> == <x, aggT(g)>.
    float[] g = {0.5f, -1f, 2f, 1f, -3f, 0.25f};
    for (int self = 0; self < 2; self++) {
      for (Aggregation mode : Aggregation.values()) {
        be.aggregate(mode, w(indptr), 0, w(indices), 0, 3, self, w(src), 0, 2, w(out), 0);
        float[] dsrc = new float[8];
        be.aggregateBackward(mode, w(indptr), 0, w(indices), 0, 3, self, w(g), 0, 2, w(dsrc), 0);
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
    be.dropout(w(x), 0, n, 0.3f, 42);
    be.dropout(w(y), 0, n, 0.3f, 42);
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
    double loss = be.softmaxCrossEntropy(w(logits), 2, 3, w(new int[] {2, -1}), w(probs), w(d), 1f);
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
    be.adam(w(p), w(g), w(new float[2]), w(new float[2]), 2, 0.1f, 0.9f, 0.999f, 1e-8f, 0f, 1);
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
    be.aggregate(Aggregation.MEAN, w(indptr), 0, w(idx), 0, rows, 1, w(x), 0, cols, w(par), 0);
    float[] dPar = new float[src * cols];
    be.aggregateBackward(
        Aggregation.MEAN, w(indptr), 0, w(idx), 0, rows, 1, w(g), 0, cols, w(dPar), 0);
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

  @Test
  void aggregateHonoursOffsetsOnEveryOperand() {
    int[] indptr = {9, 9, 0, 2, 2, 3};
    int[] indices = {7, 7, 1, 3, 0};
    float[] src = {-1, -1, 1, 2, 3, 4, 5, 6, 7, 8};
    float[] out = new float[8];
    be.aggregate(Aggregation.MEAN, w(indptr), 2, w(indices), 2, 3, 0, w(src), 2, 2, w(out), 1);
    assertThat(out).containsExactly(0, 5, 6, 0, 0, 1, 2, 0);
    float[] dsrc = new float[10];
    be.aggregateBackward(
        Aggregation.SUM, w(indptr), 2, w(indices), 2, 3, 0, w(out), 1, 2, w(dsrc), 2);
    assertThat(dsrc).containsExactly(0, 0, 1, 2, 5, 6, 0, 0, 5, 6);
  }

  @Test
  void stridedAggregationWritesAndReadsOneColumnRangeOfAWiderMatrix() {
    int rows = 40;
    int src = 70;
    int cols = 5;
    int[] indptr = new int[rows + 1];
    int[] idx = new int[rows * 3];
    for (int i = 0; i < rows; i++) {
      for (int d = 0; d < 3; d++) {
        idx[i * 3 + d] = (int) (CounterRng.uniform(11, i * 3L + d) * src);
      }
      indptr[i + 1] = (i + 1) * 3;
    }
    float[] x = rand(src * cols, 12);
    for (int self = 0; self <= 1; self++) {
      // Source rows 7 wide (cols 2..7), output rows [keep | agg | keep] 9 wide at column 3.
      float[] wide = new float[src * 7];
      for (int r = 0; r < src; r++) {
        System.arraycopy(x, r * cols, wide, r * 7 + 2, cols);
      }
      float[] dense = new float[rows * cols];
      be.aggregate(
          Aggregation.MEAN, w(indptr), 0, w(idx), 0, rows, self, w(x), 0, cols, w(dense), 0);
      float[] cat = rand(rows * 9, 13);
      float[] before = cat.clone();
      assertThat(be.stridedAggregation()).isTrue();
      be.aggregateStrided(
          Aggregation.MEAN, w(indptr), 0, w(idx), 0, rows, self, w(wide), 2, 7, cols, w(cat), 3, 9);
      for (int r = 0; r < rows; r++) {
        for (int j = 0; j < 9; j++) {
          float want = j >= 3 && j < 3 + cols ? dense[r * cols + j - 3] : before[r * 9 + j];
          assertThat(cat[r * 9 + j]).isEqualTo(want);
        }
      }
      float[] dWant = new float[src * cols];
      be.aggregateBackward(
          Aggregation.MEAN, w(indptr), 0, w(idx), 0, rows, self, w(dense), 0, cols, w(dWant), 0);
      float[] dGot = new float[src * cols];
      be.aggregateBackwardStrided(
          Aggregation.MEAN, w(indptr), 0, w(idx), 0, rows, self, w(cat), 3, 9, cols, w(dGot), 0);
      assertThat(dGot).isEqualTo(dWant);
    }
  }

  @Test
  void backendsWithoutStridedAggregationRefuseStrides() {
    Backend plain =
        (Backend)
            java.lang.reflect.Proxy.newProxyInstance(
                Backend.class.getClassLoader(),
                new Class<?>[] {Backend.class},
                (proxy, m, args) -> {
                  if (m.isDefault()) {
                    return java.lang.reflect.InvocationHandler.invokeDefault(proxy, m, args);
                  }
                  return m.getName().equals("name") ? "plain" : null;
                });
    assertThat(plain.stridedAggregation()).isFalse();
    assertThatThrownBy(
            () ->
                plain.aggregateStrided(
                    Aggregation.MEAN, null, 0, null, 0, 1, 0, null, 0, 4, 2, null, 0, 2))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("plain");
  }

  @Test
  void fusedDropoutCopyAndMaskedBackwardEqualDropoutRepeated() {
    // Sizes below and above the parallel threshold, not multiples of the 32-bit mask words.
    for (int n : new int[] {1, 45, 3_000_017}) {
      float[] x = rand(n, 21);
      long key = 99;
      float[] want = new float[n];
      for (int i = 0; i < n; i++) {
        want[i] = CounterRng.uniform(key, i) < 0.5f ? 0f : x[i] * 2f;
      }
      float[] got = new float[n + 3];
      int[] keep = new int[(n + 31) / 32];
      be.dropoutCopy(w(x), 0, w(got), 3, n, 0.5f, key, w(keep));
      assertThat(java.util.Arrays.copyOfRange(got, 3, n + 3)).isEqualTo(want);
      assertThat(x).isEqualTo(rand(n, 21));
      float[] inPlace = x.clone();
      int[] keep2 = new int[keep.length];
      be.dropout(w(inPlace), 0, n, 0.5f, key, w(keep2));
      assertThat(inPlace).isEqualTo(want);
      assertThat(keep2).isEqualTo(keep);
      float[] g = rand(n, 22);
      float[] gWant = g.clone();
      be.dropout(w(gWant), 0, n, 0.5f, key);
      be.dropoutBackward(w(g), 0, n, 0.5f, key, w(keep));
      assertThat(g).isEqualTo(gWant);
    }
  }

  @Test
  void reluAndItsBackwardKeepSignedZerosAndNaNs() {
    float nan = Float.intBitsToFloat(0xffc00001);
    float[] x = {-2f, -0f, 0f, 3f, nan, Float.NEGATIVE_INFINITY, -Float.MIN_VALUE};
    be.activate(Activation.RELU, w(x), 0, x.length);
    int[] bits = new int[x.length];
    for (int i = 0; i < x.length; i++) {
      bits[i] = Float.floatToRawIntBits(x[i]);
    }
    assertThat(bits)
        .containsExactly(0, 0x80000000, 0, Float.floatToRawIntBits(3f), 0xffc00001, 0, 0);
    float[] y = {-1f, -0f, 0f, 2f, nan};
    float[] dy = {-5f, 6f, 7f, -8f, -9f};
    be.activateBackward(Activation.RELU, w(y), 0, w(dy), 0, y.length);
    assertThat(dy).containsExactly(0f, 0f, 0f, -8f, -9f);
  }

  @Test
  void smallOpsCopyConcatAndScale() {
    FloatTensor t = be.allocFloat(8);
    be.upload(new float[] {9, 1, 2, 3, 4}, 1, t, 2, 4);
    float[] h = new float[8];
    be.download(t, 0, h, 0, 8);
    assertThat(h).containsExactly(0, 0, 1, 2, 3, 4, 0, 0);
    // Two 2x1 columns side by side into a 2x2 matrix.
    float[] cat = new float[4];
    be.copy2d(2, 1, t, 2, 1, w(cat), 0, 2);
    be.copy2d(2, 1, t, 4, 1, w(cat), 1, 2);
    assertThat(cat).containsExactly(1, 3, 2, 4);
    be.axpy(2, 2f, w(cat), 0, t, 6);
    be.scale(2, -1f, t, 2);
    be.copy(t, 4, t, 0, 2);
    be.zero(t, 4, 1);
    be.download(t, 0, h, 0, 8);
    assertThat(h).containsExactly(3, 4, -1, -2, 0, 4, 2, 6);
    int[] ints = new int[3];
    IntTensor it = be.allocInt(3);
    be.upload(new int[] {5, 6}, 0, it, 1, 2);
    be.download(it, 0, ints, 0, 3);
    assertThat(ints).containsExactly(0, 5, 6);
  }

  @Test
  void csrDropoutMasksLikeTheDenseMatrix() {
    int rows = 40;
    int cols = 30;
    float[] dense = new float[rows * cols];
    int[] ptr = new int[rows + 1];
    int[] col = new int[rows * cols];
    float[] val = new float[rows * cols];
    int nnz = 0;
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < cols; c++) {
        if (CounterRng.uniform(3, r * cols + c) < 0.2f) {
          dense[r * cols + c] = 1f + c;
          col[nnz] = c;
          val[nnz++] = 1f + c;
        }
      }
      ptr[r + 1] = nnz;
    }
    be.dropout(w(dense), 0, rows * cols, 0.4f, 11);
    be.dropoutCsr(w(ptr), w(col), w(val), rows, cols, 0.4f, 11);
    for (int r = 0; r < rows; r++) {
      for (int q = ptr[r]; q < ptr[r + 1]; q++) {
        assertThat(val[q]).isEqualTo(dense[r * cols + col[q]]);
      }
    }
  }

  @Test
  void countCorrectSkipsUnlabeledRowsAndTakesTheFirstMaximum() {
    float[] scores = {0.1f, 0.7f, 0.2f, 0.5f, 0.5f, 0f, 0.9f, 0f, 0.1f};
    assertThat(be.countCorrect(w(scores), 3, 3, w(new int[] {1, 0, -1}))).isEqualTo(2);
    assertThat(be.countCorrect(w(scores), 3, 3, w(new int[] {1, 1, 0}))).isEqualTo(2);
  }

  @Test
  void refusesFreedAndForeignTensors() {
    FloatTensor t = be.allocFloat(4);
    t.close();
    be.free(t);
    assertThatThrownBy(() -> be.zero(t, 0, 1)).hasMessageContaining("freed");
    FloatTensor foreign = new CheckingBackend(new CpuBackend()).allocFloat(4);
    assertThatThrownBy(() -> be.zero(foreign, 0, 1))
        .hasMessageContaining("checked")
        .hasMessageContaining("CPU backend");
  }
}
