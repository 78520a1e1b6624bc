package io.fanout.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.tensor.CheckingBackend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.FloatTensor;
import org.junit.jupiter.api.Test;

/**
 * A training forward applies layer 0's dropout to the uploaded features in place, so a second
 * forward on the same upload is refused instead of seeing dropped-out features; inference forwards
 * leave the features as they are.
 */
class BatchTensorsTest {
  private static float[] logits(GnnModel m, FloatTensor t, int n) {
    float[] h = new float[n];
    m.backend().download(t, 0, h, 0, n);
    return h;
  }

  @Test
  void repeatedTrainingForwardsOnOneUploadAgree() {
    for (float density : new float[] {1f, 0.03f}) {
      ModelConfig cfg = new ModelConfig("sage", 40, 6, 3, 2, 0.5f, "relu", "none");
      GnnModel m = new GnnModel(cfg, new CheckingBackend(new CpuBackend()));
      m.init(2);
      Block[] b = GradientCheckTest.blocks();
      float[] x = new float[16 * 40];
      for (int i = 0; i < x.length; i++) {
        x[i] = CounterRng.uniform(5, i) < density ? 1f + CounterRng.uniform(6, i) : 0f;
      }
      BatchTensors t = m.upload(b, x, new int[] {0, 1, 2, 1}, 4);
      assertThat(t.sparseInput()).isEqualTo(density < 0.05f);
      float[] eval = logits(m, m.forward(t, false, 0), 12);
      assertThat(logits(m, m.forward(t, false, 0), 12)).isEqualTo(eval);
      float[] first = logits(m, m.forward(t, true, 9), 12);
      assertThatThrownBy(() -> m.forward(t, true, 9))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("upload the batch again");
      assertThatThrownBy(() -> m.forward(t, false, 0)).isInstanceOf(IllegalStateException.class);
      assertThat(m.forward(b, x, true, 9)).as("density %s", density).startsWith(first);
      assertThat(m.forward(b, x, false, 0)).startsWith(eval);
    }
  }
}
