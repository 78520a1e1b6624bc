package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import org.junit.jupiter.api.Test;

/** The Spark-free bench-train entry point's argument parsing. */
class TrainBenchmarkMainTest {
  @Test
  void readsOptionValuePairs() {
    assertThat(TrainBenchmarkMain.parse(new String[] {"--backend", "cuda", "--batches", "5"}))
        .containsEntry("backend", "cuda")
        .containsEntry("batches", "5")
        .hasSize(2);
  }

  @Test
  void unknownOrDanglingOptionsAreInputErrors() {
    assertThatThrownBy(() -> TrainBenchmarkMain.parse(new String[] {"--verify-rounds", "1"}))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("got '--verify-rounds'");
    assertThatThrownBy(() -> TrainBenchmarkMain.parse(new String[] {"--backend"}))
        .isInstanceOf(InvalidInputException.class);
  }
}
