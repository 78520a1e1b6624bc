package io.fanout.nn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.tensor.CpuBackend;
import org.junit.jupiter.api.Test;

/**
 * A model's parameter count, known in 64 bits before the model is built: equal to what a built
 * model holds, and past one array's reach a refusal rather than a negative array size.
 */
class ParamCountTest {
  @Test
  void theCountIsWhatABuiltModelHolds() {
    for (ModelConfig cfg :
        new ModelConfig[] {
          new ModelConfig("sage", 40, 6, 3, 2, 0f, "relu", "none"),
          new ModelConfig("gcn", 40, 6, 3, 3, 0f, "relu", "none"),
          new ModelConfig("sage", 3, 8, 8, 1, 0f, "relu", "none", "mlp"),
          new ModelConfig("gcn", 17, 5, 4, 1, 0f, "relu", "none"),
          new ModelConfig("gat", 40, 16, 3, 2, 0f, "elu", "none"),
          GradientCheckTest.config("gat", 7, 0f, "elu"),
          GradientCheckTest.config("gat", 7, 0f, "elu", 1, true),
          GradientCheckTest.config("gat", 7, 0f, "elu", 4, false),
          GradientCheckTest.config("gat", 7, 0f, "elu", 2, true)
        }) {
      try (GnnModel m = new GnnModel(cfg, new CpuBackend())) {
        assertThat(GnnModel.paramCount(cfg)).as(cfg.toString()).isEqualTo(m.numParams());
      }
    }
  }

  @Test
  void aModelPastOneArrayIsRefusedBeforeAnyAllocation() {
    // cora's 1433 features at hidden width 1e6: 2.9e9 parameters, which int arithmetic wraps
    ModelConfig huge = new ModelConfig("sage", 1433, 1_000_000, 7, 2, 0f, "relu", "none");
    assertThat(GnnModel.paramCount(huge))
        .isEqualTo(2L * 1433 * 1_000_000 + 1_000_000 + 2L * 1_000_000 * 7 + 7);
    assertThatThrownBy(() -> new GnnModel(huge, new CpuBackend()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2881000007 parameters");
  }
}
