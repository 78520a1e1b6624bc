package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.nn.ModelConfig;
import org.junit.jupiter.api.Test;

/** The check of a model's size against one array and the heap, made before the model is built. */
class ModelMemoryCheckTest {
  static final ModelConfig SMALL = new ModelConfig("sage", 1433, 64, 7, 2, 0f, "relu", "none");

  @Test
  void aModelPastOneArrayIsRefusedNamingItsWidth() {
    ModelConfig huge = new ModelConfig("sage", 1433, 1_000_000, 7, 2, 0f, "relu", "none");
    assertThatThrownBy(() -> TrainMemory.checkModel(huge, Long.MAX_VALUE))
        .isInstanceOf(OutOfHeapException.class)
        .hasMessageContaining("hidden width 1000000 (--hidden)")
        .hasMessageContaining("2,881,000,007 parameters")
        .hasMessageContaining("a model can hold; choose a smaller --hidden");
  }

  @Test
  void aModelPastTheHeapIsRefusedNamingBoth() {
    // 184,391 parameters x 16 bytes: about 2.8 MiB
    assertThatThrownBy(() -> TrainMemory.checkModel(SMALL, 1 << 20))
        .isInstanceOf(OutOfHeapException.class)
        .hasMessageContaining("184,391 parameters")
        .hasMessageContaining("more than the 1 MiB there is (max heap)")
        .hasMessageContaining("FANOUT_JAVA_OPTS")
        .hasMessageContaining("choose a smaller --hidden");
    assertThatCode(() -> TrainMemory.checkModel(SMALL, 64L << 20)).doesNotThrowAnyException();
  }

  @Test
  void aLearnedTablePastTheHeapIsRefusedNamingIt() {
    // 1,000,000 vertices x 64 floats x 12 bytes (values and two moments): about 732 MiB
    ModelConfig learned =
        new ModelConfig("sage", 64, 64, 7, 2, 0f, "relu", "none").withEmbeddingRows(1_000_000);
    assertThatThrownBy(() -> TrainMemory.checkModel(learned, 512L << 20))
        .isInstanceOf(OutOfHeapException.class)
        .hasMessageContaining("--learned-embeddings")
        .hasMessageContaining("1,000,000 vertices x 64 floats")
        .hasMessageContaining("choose a smaller --hidden");
    assertThatCode(() -> TrainMemory.checkModel(learned, 2L << 30)).doesNotThrowAnyException();
  }
}
