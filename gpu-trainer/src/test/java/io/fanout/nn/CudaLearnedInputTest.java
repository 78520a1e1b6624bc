package io.fanout.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fanout.tensor.Backend;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.GpuTests;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * On the CUDA backend, a model with a learned input table computes its rows' gradient (layer 0's
 * input gradient, through dropout) as the CPU does, and takes the same sparse step. Skipped, with
 * the reason printed, where no CUDA device exists.
 */
@Tag("gpu")
class CudaLearnedInputTest {
  private static float[][] step(Backend be, String kind) {
    ModelConfig cfg = GradientCheckTest.config(kind, 4, 0.25f, "relu").withEmbeddingRows(40);
    try (GnnModel m = new GnnModel(cfg, be)) {
      m.init(11);
      Block[] b = GradientCheckTest.blocks();
      int[] nodes = new int[16];
      for (int i = 0; i < nodes.length; i++) {
        nodes[i] = (i * 7 + 3) % 40;
      }
      BatchTensors t = m.uploadLearned(b, nodes, null, 0);
      float[] logits = new float[4 * 3];
      be.download(m.forward(t, true, 77), 0, logits, 0, logits.length);
      float[] d = new float[4 * 3];
      GradientCheckTest.sce(logits, 4, 3, new int[] {0, 2, 1, 2}, new float[12], d);
      m.zeroGrad();
      m.backward(d);
      float[] g = m.inputGradient(16).clone();
      m.updateEmbeddings(nodes, nodes.length, 0.01f);
      return new float[][] {g, m.embeddings().chunks(0)[0].clone()};
    }
  }

  @Test
  void rowGradientsAndTheSparseStepMatchTheCpu() {
    GpuTests.assumeDevice();
    for (String kind : new String[] {"sage", "gcn", "gat"}) {
      float[][] cpu = step(new CpuBackend(), kind);
      try (CudaBackend cuda = new CudaBackend(0)) {
        float[][] gpu = step(cuda, kind);
        for (int i = 0; i < cpu[0].length; i++) {
          assertThat(gpu[0][i]).as("%s gradient %d", kind, i).isCloseTo(cpu[0][i], within(1e-5f));
        }
        for (int i = 0; i < cpu[1].length; i++) {
          assertThat(gpu[1][i]).as("%s row value %d", kind, i).isCloseTo(cpu[1][i], within(1e-4f));
        }
      }
    }
  }
}
