package io.fanout.nn;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.tensor.CpuBackend;
import org.junit.jupiter.api.Test;

/**
 * A model whose input is a learned table ({@link ModelConfig#learnedInput}): the gradient of its
 * rows (layer 0's input gradient, through dropout) against central finite differences of the loss,
 * and a sparse step that moves exactly the rows of the batch.
 */
class LearnedInputGradientTest {
  private static final int ROWS = 40;
  private static final int DIM = 4;

  /** The batch's 16 input nodes: distinct rows of the table, not in order. */
  private static int[] nodes() {
    int[] n = new int[16];
    for (int i = 0; i < n.length; i++) {
      n[i] = (i * 7 + 3) % ROWS;
    }
    return n;
  }

  private static GnnModel model(String kind, float dropout) {
    ModelConfig cfg = GradientCheckTest.config(kind, DIM, dropout, "elu").withEmbeddingRows(ROWS);
    GnnModel m = new GnnModel(cfg, new CpuBackend());
    m.init(11);
    return m;
  }

  private static double loss(GnnModel m, Block[] b, int[] nodes, int[] labels, float[] dLogits) {
    BatchTensors t = m.uploadLearned(b, nodes, null, 0);
    float[] logits = new float[b[1].numDst() * 3];
    m.backend().download(m.forward(t, true, 77), 0, logits, 0, logits.length);
    int rows = b[1].numDst();
    float[] probs = new float[rows * 3];
    return GradientCheckTest.sce(logits, rows, 3, labels, probs, dLogits);
  }

  private static void check(String kind, float dropout) {
    GnnModel m = model(kind, dropout);
    Block[] b = GradientCheckTest.blocks();
    int[] nodes = nodes();
    int[] labels = {0, 2, 1, 2};
    float[] d = new float[4 * 3];
    loss(m, b, nodes, labels, d);
    m.zeroGrad();
    m.backward(d);
    float[] g = m.inputGradient(16).clone();
    float[] values = m.embeddings().chunks(0)[0];
    double eps = 1e-2;
    int checked = 0;
    for (int i = 0; i < 16; i++) {
      for (int k = 0; k < DIM; k++) {
        int at = nodes[i] * DIM + k;
        float saved = values[at];
        values[at] = (float) (saved + eps);
        double up = loss(m, b, nodes, labels, null);
        values[at] = (float) (saved - eps);
        double down = loss(m, b, nodes, labels, null);
        values[at] = saved;
        double numeric = (up - down) / (2 * eps);
        assertThat((double) g[i * DIM + k])
            .as("%s row %d column %d", kind, nodes[i], k)
            .isCloseTo(
                numeric, org.assertj.core.data.Offset.offset(2e-3 + 0.02 * Math.abs(numeric)));
        checked += numeric != 0 ? 1 : 0;
      }
    }
    assertThat(checked).as("rows that reach the seeds").isPositive();
  }

  @Test
  void sageRowGradientsMatchFiniteDifferences() {
    check("sage", 0.25f);
  }

  @Test
  void gcnRowGradientsMatchFiniteDifferences() {
    check("gcn", 0f);
  }

  @Test
  void gatRowGradientsMatchFiniteDifferences() {
    check("gat", 0f);
  }

  @Test
  void aSparseStepMovesTheBatchsRowsOnly() {
    GnnModel m = model("sage", 0.25f);
    Block[] b = GradientCheckTest.blocks();
    int[] nodes = nodes();
    float[] before = m.embeddings().chunks(0)[0].clone();
    float[] d = new float[4 * 3];
    loss(m, b, nodes, new int[] {0, 2, 1, 2}, d);
    m.zeroGrad();
    m.backward(d);
    float[] g = m.inputGradient(nodes.length).clone();
    m.updateEmbeddings(nodes, nodes.length, 0.01f);
    float[] after = m.embeddings().chunks(0)[0];
    java.util.Set<Integer> touched = new java.util.HashSet<>();
    for (int v : nodes) {
      touched.add(v);
    }
    int moved = 0;
    for (int v = 0; v < ROWS; v++) {
      float[] x = java.util.Arrays.copyOfRange(before, v * DIM, (v + 1) * DIM);
      float[] y = java.util.Arrays.copyOfRange(after, v * DIM, (v + 1) * DIM);
      if (!touched.contains(v)) {
        assertThat(y).as("row %d, not in the batch", v).isEqualTo(x);
      } else if (!java.util.Arrays.equals(x, y)) {
        moved++;
      }
    }
    int reached = 0; // rows of the batch whose gradient is not zero: each moves
    for (int i = 0; i < nodes.length; i++) {
      for (int k = 0; k < DIM; k++) {
        if (g[i * DIM + k] != 0f) {
          reached++;
          assertThat(after[nodes[i] * DIM + k])
              .as("row %d column %d", nodes[i], k)
              .isNotEqualTo(before[nodes[i] * DIM + k]);
          break;
        }
      }
    }
    assertThat(reached).as("rows that reach the seeds").isPositive();
    assertThat(moved).isEqualTo(reached);
    assertThat(m.embeddings().step()).isEqualTo(1);
    assertThat(m.params().length)
        .as("the table is outside the dense parameters")
        .isEqualTo(GnnModel.paramCount(m.config()));
  }
}
